#!/usr/bin/env python3
"""Fit the polynomial pieces of the Bessel functions in src/shared/ops_bessel.h
(mpmath Chebyshev fits, near-minimax), check the double-precision evaluation
the header does (Python floats are IEEE doubles without contraction, and
math.exp/sin/cos/sqrt/log are the C library's) against mpmath, and print the
tables as C initialisers (paste into the header).

  i0e, i1e on [0, 16): pieces of width 2, a polynomial in d = x - c (c the
      piece's midpoint) of i0e(x) and of i1e(x)/x (odd: i1e = x R(d));
      x >= 16: sqrt(x) i_ne(x) as a polynomial in s = 16/x.
  j0, j1, y0, y1 on [0, 8 pi): cells of width pi/2 (index floor(x 2/pi),
      plus the number of split points at or below x, for the pieces near the
      logarithmic singularity of y0 and y1); a cell holding a zero z (stored
      as z_hi + z_lo) is (x - z) R(x - z), the others R(x - c); y0 below 0.6
      and y1 below 1 are (2/pi) log(x) J(x) (- 2/(pi x) for y1) plus a fit
      in t = x^2 (times x for y1);
      x >= 8 pi: Hankel's form sqrt(2/(pi x)) (P cos chi -+ Q sin chi) with
      P and Q (times x/25) fitted in u = (25/x)^2; chi = x - (2 nu + 1) pi/4
      reduced by pi/2 with pi/4 in three parts (Cody and Waite), sin and cos
      of the rest fitted in its square.

Every piece's degree is the smallest whose fit error is below 2^-57
(relative); the tables pad with leading zeros to one length per function.
Usage:
  python3 tools/gen_bessel_coeffs.py           (the C tables; ~1 minute)
  python3 tools/gen_bessel_coeffs.py --check   (also the worst error of the
                                                double evaluation per piece)
"""
import math
import random
import sys
import mpmath as mp

mp.mp.dps = 40
TOL = mp.mpf(2) ** -57
NMAX = 26
HALF_PI = math.pi / 2  # the cell width (the double nearest pi/2)
XA = 8 * math.pi       # the Hankel form from here on
XI = 16.0              # the I functions' asymptotic fit from here on
CHECK = '--check' in sys.argv


def fit(f, a, b, rel_to=None):
    """smallest-degree Chebyshev fit of f on [a, b] with relative error < TOL
    (relative to min |f| on [a, b], or to rel_to)"""
    a, b = mp.mpf(a), mp.mpf(b)
    if rel_to is None:
        rel_to = min(abs(f(a + (b - a) * k / 16)) for k in range(17))
    for n in range(6, NMAX + 1):
        cs, err = mp.chebyfit(f, [a, b], n, error=True)
        if err < TOL * rel_to:
            return [float(c) for c in cs]
    raise SystemExit('no fit of degree <= %d on [%s, %s] (error %s)' % (NMAX, a, b, mp.nstr(err / rel_to, 3)))


def horner(cs, v):
    r = 0.0
    for c in cs:
        r = r * v + c
    return r


def ulps(v, ref):
    ref = mp.mpf(ref)
    if ref == 0:
        return 0.0 if v == 0 else math.inf
    e = max(int(mp.floor(mp.log(abs(ref), 2))), -1022)
    return float(abs(mp.mpf(v) - ref) / mp.mpf(2) ** (e - 52))


# ---------------------------------------------------------------- J and Y
def jy(nu, y):
    return (lambda x: mp.bessely(nu, x)) if y else (lambda x: mp.besselj(nu, x))


def zeros(nu, y, upto):
    zs, k = [], 1
    while True:
        z = mp.besselyzero(nu, k) if y else mp.besseljzero(nu, k)
        if z > upto:
            return zs
        zs.append(z)
        k += 1


# splits: extra piece boundaries (below pi); small: the bound of the
# logarithmic small-x formula (y0, y1)
JY = {
    'j0': dict(nu=0, y=False, splits=[], small=0.0),
    'j1': dict(nu=1, y=False, splits=[], small=0.0),
    'y0': dict(nu=0, y=True, splits=[0.6, 1.1, 2.2], small=0.6),
    'y1': dict(nu=1, y=True, splits=[1.0, 1.9, 2.6], small=1.0),
}
NSPLIT = 3


def jy_pieces(name):
    d = JY[name]
    f = jy(d['nu'], d['y'])
    bounds = sorted(set([HALF_PI * k for k in range(1, 16)] + d['splits']))
    edges = [0.0] + bounds + [XA]
    zs = zeros(d['nu'], d['y'], XA)
    if name == 'j1':
        zs = [mp.mpf(0)] + zs
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        if lo < d['small']:
            pieces.append(dict(lo=lo, hi=hi, zero=False, c=(0.0, 0.0), cs=[0.0]))
            continue
        z = [z for z in zs if lo <= z < hi]
        if z:
            z = z[0]
            chi = float(z)
            clo = float(z - chi)
            g = (lambda z: lambda t: f(z + t) / t if t != 0 else mp.diff(f, z))(z)
            cs = fit(g, lo - z, hi - z)
            pieces.append(dict(lo=lo, hi=hi, zero=True, c=(chi, clo), cs=cs, z=z))
        else:
            c = float((lo + hi) / 2)
            cs = fit((lambda c: lambda t: f(c + t))(mp.mpf(c)), lo - c, hi - c)
            pieces.append(dict(lo=lo, hi=hi, zero=False, c=(c, 0.0), cs=cs))
    return pieces


def small_fit(name):
    """y0: Y0(x) - (2/pi) log(x) J0(x) in t = x^2; y1: (Y1(x) - (2/pi)(log(x) J1(x) - 1/x)) / x in t"""
    b = JY[name]['small']
    if name == 'y0':
        def g(t):
            if t == 0:
                return 2 / mp.pi * (mp.euler - mp.log(2))
            x = mp.sqrt(t)
            return mp.bessely(0, x) - 2 / mp.pi * mp.log(x) * mp.besselj(0, x)
    else:
        def g(t):
            if t == 0:
                return (2 * mp.euler - 2 * mp.log(2) - 1) / (2 * mp.pi)
            x = mp.sqrt(t)
            return (mp.bessely(1, x) - 2 / mp.pi * (mp.log(x) * mp.besselj(1, x) - 1 / x)) / x
    return fit(g, 0, b * b)


def hankel(nu):
    """P(u) and Q(u) (x/25 Q) with u = (25/x)^2, x >= XA"""
    def pq(x):
        chi = x - (2 * nu + 1) * mp.pi / 4
        a = mp.sqrt(mp.pi * x / 2)
        j, y = mp.besselj(nu, x), mp.bessely(nu, x)
        return a * (j * mp.cos(chi) + y * mp.sin(chi)), a * (-j * mp.sin(chi) + y * mp.cos(chi))

    mu = 4 * nu * nu

    def P(u):
        if u == 0:
            return mp.mpf(1)
        with mp.workdps(60):
            return pq(25 / mp.sqrt(u))[0]

    def Q(u):
        if u == 0:
            return mp.mpf(mu - 1) / 8 / 25
        with mp.workdps(60):
            x = 25 / mp.sqrt(u)
            return pq(x)[1] * x / 25
    ub = (25 / mp.mpf(XA)) ** 2
    return fit(P, 0, ub), fit(Q, 0, ub, rel_to=abs(Q(0)))


def trig():
    """sin r = r + r z S(z), cos r = 1 - z/2 + z^2 C(z), z = r^2, |r| <= pi/4
    (a little more: the reduction's rounding); pi/4 = P1 + P2 + P3, P1 and
    P2 of 33 bits (k P1, k P2 exact for k < 2^20)"""
    zb = (mp.pi / 4 + mp.mpf(2) ** -20) ** 2
    S = fit(lambda z: (mp.sin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3 if z else mp.mpf(-1) / 6, 0, zb)
    C = fit(lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2 if z else mp.mpf(1) / 24, 0, zb)
    q = mp.pi / 4
    p1 = float(mp.floor(q * 2 ** 32) / 2 ** 32)
    p2 = float(mp.floor((q - p1) * 2 ** 65) / 2 ** 65)
    p3 = float(q - p1 - p2)
    return S, C, (p1, p2, p3)


def sincos_chi(x, nu, S, C, P4):
    """cos and sin of chi = x - (2 nu + 1) pi/4, 8 pi <= x < 2^19 pi/4 (as the header)"""
    t = x * (2 / math.pi) - (nu + 0.5)
    n = int((t + 6755399441055744.0) - 6755399441055744.0)  # rint(t): 0x1.8p52
    k = 2 * n + 2 * nu + 1
    a = x - k * P4[0]
    w = k * P4[1]
    b = a - w
    e1 = (a - b) - w
    w3 = k * P4[2]
    rh = b - w3
    rl = ((b - rh) - w3) + e1
    z = rh * rh
    sn = rh + (rl * (1 - 0.5 * z) + rh * z * horner(S, z))
    hz = 0.5 * z
    w = 1 - hz
    cs = w + (((1 - w) - hz) + (z * z * horner(C, z) - rh * rl))
    q = n & 3
    if q == 0:
        return cs, sn
    if q == 1:
        return -sn, cs
    if q == 2:
        return -cs, -sn
    return sn, -cs


# ---------------------------------------------------------------- I
def ie(nu):
    return lambda x: mp.besseli(nu, x) * mp.exp(-x)


def i_pieces(nu):
    f = ie(nu)
    pieces = []
    for k in range(int(XI) // 2):
        lo, hi = 2.0 * k, 2.0 * k + 2
        c = lo + 1
        if nu == 1:  # i1e(x) / x: odd, keeps its relative accuracy at 0
            g = (lambda c: lambda t: f(c + t) / (c + t) if c + t != 0 else mp.mpf(0.5))(mp.mpf(c))
        else:
            g = (lambda c: lambda t: f(c + t))(mp.mpf(c))
        cs = fit(g, -1, 1)
        pieces.append(dict(lo=lo, hi=hi, zero=False, c=(c, 0.0), cs=cs))
    return pieces


def i_asym(nu):
    def F(s):
        if s == 0:
            return 1 / mp.sqrt(2 * mp.pi)
        x = XI / s
        return mp.sqrt(x) * f(x)
    f = ie(nu)
    return fit(F, 0, 1)


# ---------------------------------------------------------------- output
def pad(cs, n):
    return [0.0] * (n - len(cs)) + cs


def fmt(v):
    return repr(float(v)) if v != 0 else '0'


def emit_table(name, pieces, centres=True):
    nc = max(len(p['cs']) for p in pieces)
    up = name.upper()
    print('/* %s: %d pieces, degrees %s */' % (name, len(pieces), ' '.join(str(len(p['cs']) - 1) for p in pieces)))
    print('#define ND_BS_%s_NP %d' % (up, len(pieces)))
    print('#define ND_BS_%s_NC %d' % (up, nc))
    if centres:
        print('#define ND_BS_%s_CENTER \\' % up)
        print('    {' + ', '.join('{%s, %s}' % (fmt(p['c'][0]), fmt(p['c'][1])) for p in pieces) + '}')
        print('#define ND_BS_%s_ZERO {%s}' % (up, ', '.join('1' if p['zero'] else '0' for p in pieces)))
    print('#define ND_BS_%s_POLY \\' % up)
    rows = ['    {' + ', '.join(fmt(c) for c in pad(p['cs'], nc)) + '}' for p in pieces]
    print('    {' + ', \\\n'.join(rows).lstrip() + '}')
    return nc


def emit_vec(name, cs):
    print('#define %s {%s}' % (name, ', '.join(fmt(c) for c in cs)))


# ------------------------------------------------- the double evaluation
def piece_eval(pieces, k, x):
    p = pieces[k]
    d = (x - p['c'][0]) - p['c'][1]
    r = horner(p['cs'], d)
    return r * d if p['zero'] else r


def jy_index(name, x):
    m = int(x * (2 / math.pi))
    return m + sum(1 for s in JY[name]['splits'] if x >= s)


def check_jy(name, pieces, small, P, Q):
    d = JY[name]
    nu, y = d['nu'], d['y']
    f = jy(nu, y)
    jp = PIECES['j%d' % nu]

    def ev(x):
        if x < d['small']:
            j = piece_eval(jp, jy_index('j%d' % nu, x), x)
            if nu == 0:
                return (2 / math.pi) * (math.log(x) * j) + horner(small, x * x)
            return (2 / math.pi) * (math.log(x) * j - 1 / x) + x * horner(small, x * x)
        if x < XA:
            return piece_eval(pieces, jy_index(name, x), x)
        s = 25 / x
        u = s * s
        p, q = horner(P, u), s * horner(Q, u)
        c, s_ = sincos_chi(x, nu, *TRIG)
        a = math.sqrt(s * (2 / (25 * math.pi)))
        return a * (p * s_ + q * c) if y else a * (p * c - q * s_)

    rnd = random.Random(1)
    pts = [rnd.uniform(1e-3, XA) for _ in range(1500)] + [math.exp(rnd.uniform(-30, 0)) for _ in range(100)]
    for p in pieces:
        if p.get('z') is not None:
            z = float(p['z'])
            pts += [z, math.nextafter(z, 0), math.nextafter(z, 9), z + 1e-9, z - 3e-6]
        pts += [p['lo'], math.nextafter(p['hi'], 0)]
    pts = [x for x in pts if x > 0]
    worst = (0, 0)
    for x in pts:
        e = ulps(ev(x), f(mp.mpf(x)))
        worst = max(worst, (e, x))
    print('/* %s: worst %.2f ulp at %r below 8 pi */' % (name, worst[0], worst[1]), file=sys.stderr)
    worst = (0, 0)
    for x in [math.exp(rnd.uniform(math.log(XA), math.log(3e5))) for _ in range(300)]:
        ref = f(mp.mpf(x))
        e = float(abs(mp.mpf(ev(x)) - ref) / mp.sqrt(2 / (mp.pi * x)) * 2 ** 53)
        worst = max(worst, (e, x))
    print('/* %s: worst absolute error %.2f ulp of the amplitude beyond */' % (name, worst[0]), file=sys.stderr)


def check_i(nu, pieces, F):
    f = ie(nu)

    def ev(x):
        if x < XI:
            r = piece_eval(pieces, int(x * 0.5), x)
            return x * r if nu == 1 else r
        return horner(F, XI / x) / math.sqrt(x)

    rnd = random.Random(2)
    pts = [rnd.uniform(0, 20) for _ in range(1000)] + [math.exp(rnd.uniform(-20, math.log(1e5))) for _ in range(300)]
    worst, worst_u = (0, 0), (0, 0)
    for x in pts:
        r = f(mp.mpf(x))
        v = ev(x)
        worst = max(worst, (ulps(v, r), x))
        if x < 700:
            worst_u = max(worst_u, (ulps(v * math.exp(x), r * mp.exp(x)), x))
    print('/* i%de: worst %.2f ulp at %r; i%d: %.2f ulp at %r */' % (nu, worst[0], worst[1], nu, worst_u[0],
                                                                     worst_u[1]), file=sys.stderr)


PIECES = {}


def main():
    print('/* generated by tools/gen_bessel_coeffs.py (mpmath %s) */' % mp.__version__)
    for nu in (0, 1):
        ps = i_pieces(nu)
        F = i_asym(nu)
        emit_table('i%de' % nu, ps, centres=False)
        emit_vec('ND_BS_I%dE_ASYM' % nu, pad(F, len(F)))
        print('#define ND_BS_I%dE_NA %d' % (nu, len(F)))
        if CHECK:
            check_i(nu, ps, F)
    global TRIG
    TRIG = trig()
    n = max(len(TRIG[0]), len(TRIG[1]))
    print('#define ND_BS_TRIG_NC %d' % n)
    emit_vec('ND_BS_SIN', pad(TRIG[0], n))
    emit_vec('ND_BS_COS', pad(TRIG[1], n))
    print('#define ND_BS_PIO4 {%s}' % ', '.join(fmt(v) for v in TRIG[2]))
    hk = {}
    for name in ('j0', 'j1', 'y0', 'y1'):
        ps = jy_pieces(name)
        PIECES[name] = ps
        emit_table(name, ps)
        print('#define ND_BS_%s_SPLIT {%s}' % (name.upper(), ', '.join(
            fmt(s) for s in JY[name]['splits'] + [1e300] * (NSPLIT - len(JY[name]['splits'])))))
        if JY[name]['small']:
            sm = small_fit(name)
            print('#define ND_BS_%s_SMALL_NC %d' % (name.upper(), len(sm)))
            emit_vec('ND_BS_%s_SMALL' % name.upper(), sm)
        else:
            sm = None
        nu = JY[name]['nu']
        if nu not in hk:
            P, Q = hankel(nu)
            hk[nu] = (P, Q)
            n = max(len(P), len(Q))
            print('#define ND_BS_PQ%d_NC %d' % (nu, n))
            emit_vec('ND_BS_P%d' % nu, pad(P, n))
            emit_vec('ND_BS_Q%d' % nu, pad(Q, n))
        if CHECK:
            check_jy(name, ps, sm, *hk[nu])


if __name__ == '__main__':
    main()
