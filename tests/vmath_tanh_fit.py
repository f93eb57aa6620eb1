#!/usr/bin/env python3
"""The polynomial of the float32 tanh kernels on AVX2 and AVX-512
(src/cpu/vmath.c, ND_VM_TANHF_G0..G4).

The kernels reduce t = |x| to s in [-ln2/4, ln2/4] and need
g(s) = (1 - exp(-2s)) / 2 = s + s^2 G(s); this fits G, of degree 4, for the
least relative error of g over that range (a little beyond it: the
reduction rounds), by Lawson's iteration (weighted least squares converging
to the minimax fit) on Chebyshev nodes, with mpmath for the reference. It
prints the coefficients rounded to float (as the kernel uses them) and the
relative error of g with them, in units of 2^-24.

    python3 tests/vmath_tanh_fit.py        # degree 4 (the kernel's)
    python3 tests/vmath_tanh_fit.py 3      # another degree, for comparison
"""
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40
deg = int(sys.argv[1]) if len(sys.argv) > 1 else 4
half_range = float(mp.log(2) / 4) * 1.002
N = 3000
s = np.cos(np.pi * (np.arange(N) + 0.5) / N) * half_range
s = s[np.abs(s) > 1e-6]  # G(s) -> -1 at 0: no information below
g_mp = [-mp.expm1(-2 * mp.mpf(x)) / 2 for x in s]
g = np.array([float(v) for v in g_mp])
G = np.array([float((v - mp.mpf(x)) / mp.mpf(x) ** 2) for v, x in zip(g_mp, s)])
w = s**2 / g  # an error e in G is a relative error e s^2 / g in g
A = np.vander(s, deg + 1, increasing=True)
lw = np.ones_like(s) / len(s)
for _ in range(200):
    W = np.sqrt(lw) * w
    c, *_ = np.linalg.lstsq(A * W[:, None], G * W, rcond=None)
    e = np.abs((A @ c - G) * w)
    lw = lw * e
    lw /= lw.sum()
cf = np.float32(c).astype(np.float64)
err = np.abs((A @ cf - G) * w).max()
print("relative error of g: %.3g (%.2f units of 2^-24) exact coefficients, %.3g (%.2f) in float"
      % (e.max(), e.max() / 2**-24, err, err / 2**-24))
for i, x in enumerate(np.float32(c)):
    print("#define ND_VM_TANHF_G%d %.9ef" % (i, x))
