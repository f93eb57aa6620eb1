#!/usr/bin/env python3
"""The complex elementwise ops against NumPy itself: every op of
the table that takes complex, through ctypes on libndgpu.so, on complex64
and complex128, on the CPU (and on cuda:0 with NDGPU_CPX_CUDA=1 when the
library has a usable GPU, e.g. the emulated one), compared with NumPy 2 on
the same inputs: random values over many magnitudes, and the special-value
grid (0, -0, tiny, 1, -1, huge, inf, -inf, NaN in each part, all pairs),
which covers the branch cuts of sqrt/log/arcsin/... on both sides.

Rules: the same result dtype; where NumPy gives NaN in a part, NaN; where
it gives an infinity, the same infinity, except where C99 Annex G leaves
the sign unspecified (a NaN in the other part); a zero's sign must match;
finite values within C eps max(|re|, |im|) of NumPy's (C = 8; 32 for the
inverse trigonometric/hyperbolic functions and power of complex64, whose
NumPy loops compute in float and lose a few ulps more). Ops NumPy refuses on
complex and the ordering comparisons / maximum / minimum (which NumPy 2
still orders lexicographically, the array API standard leaves unspecified
and libndgpu refuses) must fail with ND_ERR_DTYPE.

    NDGPU_LIBRARY=build/libndgpu.so python3 tests/test_complex_numpy.py

The C functions are called through the package's loader (C.nd_unary,
C.nd_binary, declared in python/ndgpu/_lib.py; tests/numpy_compare.py);
the op tables are the library's own (nd_unary_op_name, nd_binary_op_name).
Prints SKIPPED and exits 0 without NumPy 2; exits 1 on a mismatch.
(make python-complex-test, part of make test through mk/complex.mk.)
"""
import ctypes
import os
import sys
from ctypes import c_void_p

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_compare import gate, C, NdDevice, to_nd, from_nd  # noqa: E402

np = gate("python-complex-test")
ND_ERR_DTYPE = None
for i in range(64):
    if C.nd_status_name(i) == b"ND_ERR_DTYPE":
        ND_ERR_DTYPE = i
        break


def op_table(namefn):
    names = {}
    for i in range(256):
        n = namefn(i)
        if n is None or n in (b"", b"?") or n.startswith(b"invalid") or n.startswith(b"unknown"):
            break
        names[n.decode()] = i
    return names


UNARY = op_table(C.nd_unary_op_name)
BINARY = op_table(C.nd_binary_op_name)
# libndgpu name -> NumPy ufunc name where they differ
NP_NAME = {"abs": "absolute", "relu": None, "sigmoid": None,
           # np.sinc is a Python function that takes complex too; the library's sinc
           # belongs to the real special functions (scipy.special's family) and
           # refuses complex like them
           "sinc": None}


def special_grid(real):
    tiny = np.finfo(real).tiny / 4  # subnormal
    huge = np.finfo(real).max / 2
    v = np.array([0.0, -0.0, tiny, -tiny, 1e-5, 0.5, 1.0, -1.0, 2.0, -3.5, 1e5, huge, -huge, np.inf, -np.inf, np.nan],
                 dtype=real)
    re, im = np.meshgrid(v, v, indexing="ij")
    return re.ravel(), im.ravel()


def random_values(real, n, rng):
    mag = np.exp(rng.uniform(np.log(np.finfo(real).tiny) * 0.9, np.log(np.finfo(real).max) * 0.9, size=(2, n)))
    small = rng.uniform(-4, 4, size=(2, n))
    sgn = rng.choice([-1.0, 1.0], size=(2, n))
    vals = np.where(rng.random((2, n)) < 0.5, small, sgn * mag).astype(real)
    return vals[0], vals[1]


def make_inputs(cdt, rng):
    real = np.float32 if cdt == np.complex64 else np.float64
    sr, si = special_grid(real)
    rr, ri = random_values(real, 3000, rng)
    z = np.empty(sr.size + rr.size, cdt)
    z.real = np.concatenate([sr, rr])
    z.imag = np.concatenate([si, ri])
    return z


# The C99 functions (NumPy takes them from the C library: Annex G special values)
C99 = {"sqrt", "exp", "log", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
       "arccosh", "arctanh"}


def mismatches(base, got, want, args, cond):
    """Elements of got that do not match want (complex, same dtype) under
    the rules of the module docstring; cond scales the tolerance per
    element (the op's condition number where it is large)."""
    fin = np.finfo(want.real.dtype)
    C = 8
    gp = [got.real.astype(np.float64), got.imag.astype(np.float64)]
    wp = [want.real.astype(np.float64), want.imag.astype(np.float64)]
    edge = np.zeros(got.shape, bool)
    nonfinite = np.zeros(got.shape, bool)
    for a in args:
        for part in (a.real, a.imag):
            edge |= part == 0
            nonfinite |= ~np.isfinite(part)
    with np.errstate(all="ignore"):
        mag = np.maximum(np.where(np.isfinite(wp[0]), np.abs(wp[0]), 0), np.where(np.isfinite(wp[1]), np.abs(wp[1]), 0))
        bad = np.zeros(got.shape, bool)
        for k in range(2):
            g, w = gp[k], wp[k]
            other_nan = np.isnan(wp[1 - k])
            b = np.isnan(w) & ~np.isnan(g)
            # an infinity's sign is unspecified (Annex G) next to a NaN
            b |= np.isinf(w) & ~(np.isinf(g) & ((g == w) | other_nan))
            finite = np.isfinite(w)
            b |= finite & ~(np.abs(g - w) <= C * fin.eps * mag * cond + C * fin.tiny)
            if base in C99:  # zeros' signs where an input part is an exact zero (branch cuts), all parts finite
                b |= finite & edge & ~nonfinite & (w == 0) & (g == 0) & (np.signbit(g) != np.signbit(w))
            bad |= b
    return bad


def compare(name, base, got, want_np, want_ld, args, fails):
    """got against NumPy: the dtype and (for bool results) the values of NumPy
    itself; values and special values against NumPy's result or, where
    NumPy's complex64/complex128 loop loses accuracy (log1p and expm1 near
    0, Smith's division of subnormals, ...), against NumPy's long double
    computation of the same ufunc rounded to the dtype; an element passes
    when it matches either. Ill-conditioned ops (power, exp2 of a large
    imaginary part) get a tolerance scaled by their condition number."""
    if got.dtype != want_np.dtype:
        fails.append("%s: dtype %s, NumPy %s" % (name, got.dtype, want_np.dtype))
        return
    if want_np.dtype == np.bool_:
        bad = np.nonzero(got != want_np)[0]
        for k in bad[:3]:
            fails.append("%s%s: %s, NumPy %s" % (name, tuple(a[k] for a in args), got[k], want_np[k]))
        return
    with np.errstate(all="ignore"):
        want = want_ld.astype(want_np.dtype)
        cond = np.ones(got.shape)
        if base in ("power", "float_power"):
            z, y = (a.astype(np.complex128) for a in args)
            lz = np.where(z != 0, np.log(np.abs(z)), 0)
            cond = 1 + np.abs(y) * (np.abs(np.nan_to_num(lz)) + np.pi) + np.abs(np.nan_to_num(lz))
        elif base in ("exp2",):
            cond = 1 + np.abs(np.nan_to_num(args[0].imag.astype(np.float64))) + np.abs(np.nan_to_num(args[0].real.astype(np.float64)))
        cond = np.where(np.isfinite(cond), cond, 1)
    bad = mismatches(base, got, want_np, args, cond) & mismatches(base, got, want, args, cond)
    if base == "expm1":
        # expm1(x + 0j) for a huge x: NumPy's formula gives inf + nan j (e^x sin 0 = inf * 0), libndgpu the
        # exact imaginary part 0, as exp(x + 0j) = inf + 0j does in Annex G
        z = args[0]
        bad &= ~((z.imag == 0) & np.isinf(got.real) & (got.imag == 0) & np.isnan(want_np.imag))
    if base == "exp2":
        # exp2 of a huge imaginary part: the phase is y ln2, whose rounding alone is |y| eps: beyond 0.1
        # radians of that, no phase (nor sign of an infinite part) is more right than another
        z = args[0]
        with np.errstate(all="ignore"):
            huge = np.abs(z.imag.astype(np.float64)) * np.finfo(z.real.dtype).eps > 0.1
        bad &= ~huge
    for k in np.nonzero(bad)[0][:4]:
        fails.append("%s%s: %r, NumPy %r (long double %r)" % (name, tuple(a[k] for a in args), got[k], want_np[k],
                                                              want[k]))
    if bad.sum() > 4:
        fails.append("%s: %d mismatches in all" % (name, int(bad.sum())))


def run(dev, devname):
    rng = np.random.default_rng(17)
    fails = []
    count = 0
    for cdt in (np.complex64, np.complex128):
        z = make_inputs(cdt, rng)
        w = np.roll(make_inputs(cdt, rng)[::-1], 7)
        # power / float_power: bases against a mix of exponents (small integers hit NumPy's fast path)
        # exponents of moderate size (z**w is ill-conditioned in |w log z|), small integers (NumPy's
        # repeated-multiplication path), halves and a few specials
        er = rng.uniform(-6, 6, size=z.size - 16)
        ei = np.where(rng.random(z.size - 16) < 0.5, 0, rng.uniform(-6, 6, size=z.size - 16))
        expo = np.concatenate([np.array([0, 1, 2, 3, -1, -2, 0.5, -0.5, 1j, 2 + 1j, 0j, -0.0, np.inf, -np.inf,
                                         complex(np.nan, 0), complex(0, np.nan)], np.complex128),
                               er + 1j * ei]).astype(cdt)
        za = to_nd(z, dev)
        for name, op in UNARY.items():
            npn = NP_NAME.get(name, name)
            f = getattr(np, npn, None) if npn else None
            out = c_void_p()
            st = C.nd_unary(ctypes.byref(out), op, za)
            refused = False
            try:
                with np.errstate(all="ignore"):
                    want = f(z) if f is not None else None
                    want_ld = f(z.astype(np.clongdouble)) if f is not None else None
                    if name == "log1p":  # NumPy's own formula cancels near 0 even in long double
                        L = z.astype(np.clongdouble)
                        x, y = L.real, L.imag
                        want_ld = np.log1p(x * (2 + x) + y * y) / 2 + 1j * np.arctan2(y, 1 + x)
                        want_ld = np.where(np.isfinite(L) & (np.abs(L) < 0.5), want_ld, f(L))
                np_ok = want is not None
            except TypeError:
                np_ok = False
            count += 1
            if st != 0:
                if np_ok and not refused:
                    fails.append("%s(%s) on %s: %s: %s" % (name, cdt.__name__, devname,
                                                          C.nd_status_name(st).decode(), C.nd_last_error().decode()))
                elif st != ND_ERR_DTYPE:
                    fails.append("%s(%s): %s, want ND_ERR_DTYPE" % (name, cdt.__name__, C.nd_status_name(st).decode()))
                continue
            got = from_nd(out)
            if not np_ok:
                fails.append("%s(%s) on %s: NumPy refuses complex, libndgpu gave a result" % (name, cdt.__name__, devname))
                continue
            compare("%s[%s, %s]" % (name, cdt.__name__, devname), name, got, want, want_ld, (z,), fails)
        ordering = {"less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin"}
        for name, op in BINARY.items():
            f = getattr(np, name, None)
            y = expo if name in ("power", "float_power") else w
            ya = to_nd(y, dev)
            out = c_void_p()
            st = C.nd_binary(ctypes.byref(out), op, za, ya)
            try:
                with np.errstate(all="ignore"):
                    want = f(z, y) if f is not None else None
                    want_ld = f(z.astype(np.clongdouble), y.astype(np.clongdouble)) if f is not None else None
                np_ok = want is not None and name not in ordering
            except TypeError:
                np_ok = False
            count += 1
            if st != 0:
                if np_ok:
                    fails.append("%s(%s) on %s: %s: %s" % (name, cdt.__name__, devname,
                                                          C.nd_status_name(st).decode(), C.nd_last_error().decode()))
                elif st != ND_ERR_DTYPE:
                    fails.append("%s(%s): %s, want ND_ERR_DTYPE" % (name, cdt.__name__, C.nd_status_name(st).decode()))
            else:
                got = from_nd(out)
                if not np_ok:
                    fails.append("%s(%s) on %s: refused complex expected, libndgpu gave a result" %
                                 (name, cdt.__name__, devname))
                else:
                    compare("%s[%s, %s]" % (name, cdt.__name__, devname), name, got, want, want_ld, (z, y), fails)
            C.nd_release(ya)
        C.nd_release(za)
    return count, fails


def main():
    devs = [(NdDevice(0, 0), "cpu")]
    if os.environ.get("NDGPU_CPX_CUDA") == "1" and C.nd_cuda_device_count() > 0:
        devs.append((NdDevice(1, 0), "cuda:0"))
    total, allf = 0, []
    for dev, name in devs:
        n, f = run(dev, name)
        total += n
        allf += f
    for f in allf[:60]:
        print("python-complex-test: MISMATCH " + f)
    print("python-complex-test: %d op x dtype x device checks on %s (%d unary, %d binary ops), %d problems" %
          (total, ", ".join(n for _, n in devs), len(UNARY), len(BINARY), len(allf)))
    return 1 if allf else 0


if __name__ == "__main__":
    sys.exit(main())
