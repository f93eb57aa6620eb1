#!/usr/bin/env python3
"""The polynomials of our float32 tanh and sigmoid kernels on AVX2 and
AVX-512 (src/cpu/vmath.c: ND_VM_TANHF_G*, ND_VM_SIGF_P*).

  tanh:    the kernels reduce t = |x| to s in [-ln2/4, ln2/4] and need
           g(s) = (1 - exp(-2s)) / 2 = s + s^2 G(s); G has degree 4.
  sigmoid: exp(r) = 1 + r P(r) on r in [-ln2/2, ln2/2]; P has degree 5.

Each is fitted for the least relative error of the function (g, exp) over
the range (a little beyond it: the reduction rounds), by Lawson's iteration
(weighted least squares converging to the minimax fit) on Chebyshev nodes,
with mpmath for the reference. Prints the coefficients rounded to float
(as the kernels use them) and the relative error with them, in units of
2^-24.

    python3 tests/vmath_fit.py tanh       # the kernel's degree
    python3 tests/vmath_fit.py sigmoid 4  # another degree, for comparison
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40
which = sys.argv[1] if len(sys.argv) > 1 else "tanh"
if which == "tanh":
    deg, half_range, name = 4, mp.log(2) / 4, "ND_VM_TANHF_G"
    func = lambda x: -mp.expm1(-2 * x) / 2  # noqa: E731
    lead = lambda x: x          # func = lead + x^2 Q(x)  # noqa: E731
    mult = lambda x: x * x      # noqa: E731
else:
    deg, half_range, name = 5, mp.log(2) / 2, "ND_VM_SIGF_P"
    func = mp.exp
    lead = lambda x: mp.mpf(1)  # func = 1 + x Q(x)  # noqa: E731
    mult = lambda x: x          # noqa: E731
if len(sys.argv) > 2:
    deg = int(sys.argv[2])
N = 3000
s = np.cos(np.pi * (np.arange(N) + 0.5) / N) * float(half_range) * 1.002
s = s[np.abs(s) > 1e-6]  # the quotient below is 0/0 at 0: no information there
xs = [mp.mpf(float(x)) for x in s]
f = np.array([float(func(x)) for x in xs])
Q = np.array([float((func(x) - lead(x)) / mult(x)) for x in xs])
w = np.array([float(mult(x)) for x in xs]) / f  # an error e in Q is a relative error e mult / f
A = np.vander(s, deg + 1, increasing=True)
lw = np.ones_like(s) / len(s)
for _ in range(200):
    W = np.sqrt(lw) * w
    c, *_ = np.linalg.lstsq(A * W[:, None], Q * W, rcond=None)
    e = np.abs((A @ c - Q) * w)
    lw = lw * e
    lw /= lw.sum()
cf = np.float32(c).astype(np.float64)
err = np.abs((A @ cf - Q) * w).max()
print("%s: relative error %.3g (%.2f units of 2^-24) exact coefficients, %.3g (%.2f) in float"
      % (which, e.max(), e.max() / 2**-24, err, err / 2**-24))
for i, x in enumerate(np.float32(c)):
    print("#define %s%d %.9ef" % (name, i, x))
