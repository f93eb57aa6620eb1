"""Printing arrays as NumPy prints them: repr(x), str(x), format(x, spec).

The output is NumPy 2's for the same data under its default print options
(np.get_printoptions(): precision 8, floatmode 'maxprec', threshold 1000,
edgeitems 3, linewidth 75, suppress False, sign '-', nanstr 'nan', infstr
'inf'), with `Array(` in place of `array(` and, for arrays off the host, a
`device='cuda:0'` entry beside `shape=` and `dtype=`:

    Array([0.1, 0.2, 0.3], dtype=float32)
    Array([0, 1, 2, ..., 1997, 1998, 1999], shape=(2000,), device='cuda:0')

The rules are ported from numpy/_core/arrayprint.py (layout, the choice
between positional and scientific notation, padding, summarising with
`...`) and from NumPy's Dragon4 digit generator (dragon4.c, itself Ryan
Juckett's): every float prints with the fewest digits that read back to the
same value in its own dtype (float16, bfloat16, float32, float64), cut at 8
fractional digits; the elements of an array share one layout. bfloat16,
which NumPy does not have, prints by the same rules with its own 8-bit
significand (its exponent cutoff is 10**2, from finfo precision 2, as
NumPy derives float16's 10**3 from precision 3).

Printing copies to the host only what it shows: beyond `threshold`
elements, the first and last `edgeitems` along each long axis are gathered
on the array's device (views and one concatenation per level) and only
that small array crosses to the host.

Pure Python (no NumPy needed at run time).
"""
import math
from ctypes import c_void_p

from ._array import call, flat_values, _HOST
from ._lib import C, NdRange, ND_NONE

PRECISION = 8
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 75
NANSTR = "nan"
INFSTR = "inf"

# Dragon4 trim modes (the letters of np.format_float_positional's `trim`)
_TRIM_NONE = "k"        # keep trailing zeros and the decimal point
_TRIM_ZEROS = "."       # trim trailing zeros, keep the decimal point
_TRIM_ONE_ZERO = "0"    # trim trailing zeros but keep one after the point
_TRIM_DPT_ZEROS = "-"   # trim trailing zeros and the decimal point

_LOG10_2 = 0.30102999566398119521373889472449


# --------------------------------------------------------------------------
# binary floating-point formats


def _round_to(x, p, emin):
    """x (a finite Python float) rounded to nearest-even into a binary
    format with p significand bits (the implicit one included) and minimum
    normal exponent emin (overflow is not handled: callers compare the
    result with small numbers)."""
    if x == 0 or not math.isfinite(x):
        return x
    _, e = math.frexp(x)
    q = max(e - p, emin - p + 1)  # the exponent of the last significand bit
    return math.ldexp(round(math.ldexp(x, -q)), q)


class FloatKind:
    """A binary floating-point dtype: p significand bits, minimum normal
    exponent emin, finfo precision (decimal digits), and the cutoffs that
    NumPy derives from them."""
    __slots__ = ("name", "p", "emin", "precision", "exp_cutoff", "small", "max_positional")

    def __init__(self, name, p, emin, precision, max_positional):
        self.name = name
        self.p = p
        self.emin = emin
        self.precision = precision
        # arrayprint compares the dtype's values with Python floats, which
        # NumPy 2 casts to the dtype first (NEP 50)
        self.exp_cutoff = _round_to(10.0 ** min(8, precision), p, emin)
        self.small = _round_to(0.0001, p, emin)
        # a scalar's str is positional for 1e-4 <= |x| < max_positional
        self.max_positional = max_positional

    def round(self, x):
        return x if self.p == 53 else _round_to(x, self.p, self.emin)

    def decompose(self, v):
        """Finite v (exactly a value of this format) as Dragon4 wants it:
        (mantissa, exponent, mantissa bit, unequal margins) with
        |v| = mantissa * 2**exponent."""
        a = abs(v)
        if a == 0:
            return 0, 0, 0, False
        m, e = math.frexp(a)
        p = self.p
        if e - 1 >= self.emin:  # normal
            mant = int(math.ldexp(m, p))
            # the gap below a power of two is half the gap above it
            # (except at the smallest normal exponent)
            return mant, e - p, p - 1, mant == 1 << (p - 1) and e - 1 != self.emin
        ex = self.emin - p + 1  # subnormal
        mant = int(math.ldexp(a, -ex))
        return mant, ex, mant.bit_length() - 1, False


FLOAT16 = FloatKind("float16", 11, -14, 3, 1e3)
BFLOAT16 = FloatKind("bfloat16", 8, -126, 2, 1e2)
FLOAT32 = FloatKind("float32", 24, -126, 6, 1e6)
FLOAT64 = FloatKind("float64", 53, -1022, 15, 1e16)
KIND_OF = {"float16": FLOAT16, "bfloat16": BFLOAT16, "float32": FLOAT32, "float64": FLOAT64,
           "complex64": FLOAT32, "complex128": FLOAT64}


# --------------------------------------------------------------------------
# Dragon4: the decimal digits of a binary float


def _dragon4(mant, exponent, mbit, unequal, unique, fractional, cutoff_max, cutoff_min):
    """The decimal digits of mant * 2**exponent and the power of ten of
    the first one, as NumPy's Dragon4 makes them.

    unique: stop at the shortest digits that identify the value among its
    neighbours in its format (the margins are half the gaps to them, which
    count as inside when the mantissa is even, as round-half-even reads
    them back); else the exact digits. cutoff_max >= 0: at most that many
    digits (fractional: past the decimal point; else in total), the last
    one rounded; cutoff_min >= 0: at least that many (unique mode only).
    Exact integer arithmetic throughout: value = v / scale, the margins
    m_lo / scale and m_hi / scale."""
    if mant == 0:
        return "0", 0
    even = mant % 2 == 0
    if unequal:
        if exponent > 0:
            v, scale, m_lo = mant << (exponent + 2), 4, 1 << exponent
        else:
            v, scale, m_lo = mant << 2, 1 << (2 - exponent), 1
        m_hi = 2 * m_lo
    else:
        if exponent > 0:
            v, scale, m_lo = mant << (exponent + 1), 2, 1 << exponent
        else:
            v, scale, m_lo = mant << 1, 1 << (1 - exponent), 1
        m_hi = m_lo
    # an estimate of floor(log10(value)) + 1 that is right or one too low
    k = math.ceil((mbit + exponent) * _LOG10_2 - 0.69)
    # below the last fractional digit wanted: start there (the value then
    # rounds to 0 or to one unit of that digit)
    if cutoff_max >= 0 and fractional and k <= -cutoff_max:
        k = -cutoff_max + 1
    if k > 0:
        scale *= 10 ** k
    elif k < 0:
        t = 10 ** -k
        v *= t
        m_lo *= t
        m_hi = 2 * m_lo if unequal else m_lo
    if v >= scale:
        k += 1
    else:
        v *= 10
        m_lo *= 10
        m_hi = 2 * m_lo if unequal else m_lo
    stop_max = k - 16383  # the size of NumPy's buffer: never reached here
    if cutoff_max >= 0:
        want = -cutoff_max if fractional else k - cutoff_max
        if want > stop_max:
            stop_max = want
    stop_min = k
    if cutoff_min >= 0:
        want = -cutoff_min if fractional else k - cutoff_min
        if want < stop_min:
            stop_min = want
    first = k - 1
    out = []
    if unique:
        while True:
            k -= 1
            d, v = divmod(v, scale)
            if even:
                low = v <= m_lo
                high = v + m_hi >= scale
            else:
                low = v < m_lo
                high = v + m_hi > scale
            if ((low or high) and k <= stop_min) or k == stop_max:
                break
            out.append(d)
            v *= 10
            m_lo *= 10
            m_hi = 2 * m_lo if unequal else m_lo
    else:
        low = high = False
        while True:
            k -= 1
            d, v = divmod(v, scale)
            if v == 0 or k == stop_max:
                break
            out.append(d)
            v *= 10
    round_down = low
    if low == high:  # either way is allowed: to the nearer, ties to even
        c = 2 * v - scale
        round_down = c < 0 if c else d % 2 == 0
    if round_down:
        out.append(d)
    elif d < 9:
        out.append(d + 1)
    else:  # carry through the trailing nines
        while out and out[-1] == 9:
            out.pop()
        if out:
            out[-1] += 1
        else:
            out.append(1)
            first += 1
    return "".join(map(str, out)), first


def _sign_char(v, sign):
    if math.copysign(1.0, v) < 0:
        return "-"
    return "+" if sign else ""


def _inf_nan(v, sign):
    if math.isnan(v):
        return "nan"
    return _sign_char(v, sign) + "inf"


def positional(v, kind, precision=-1, min_digits=-1, unique=True, fractional=True, trim=_TRIM_NONE,
               sign=False, pad_left=-1, pad_right=-1):
    """np.format_float_positional(v of dtype kind, ...) (-1: not given)."""
    if not math.isfinite(v):
        return _inf_nan(v, sign)
    sc = _sign_char(v, sign)
    mant, ex, mbit, unequal = kind.decompose(v)
    digits, pexp = _dragon4(mant, ex, mbit, unequal, unique, fractional, precision, min_digits)
    nd = len(digits)
    if pexp >= 0:
        whole = pexp + 1
        if nd <= whole:
            body, nfrac = digits + "0" * (whole - nd), 0
        else:
            body, nfrac = digits[:whole] + "." + digits[whole:], nd - whole
    else:
        zeros = -(pexp + 1)
        body, nfrac, whole = "0." + "0" * zeros + digits, zeros + nd, 1
    if trim != _TRIM_DPT_ZEROS and nfrac == 0:
        body += "."
    add = min_digits if unique else precision
    want = add if fractional else add - whole
    if trim == _TRIM_ONE_ZERO:
        if nfrac == 0:
            body += "0"
            nfrac = 1
    elif trim == _TRIM_NONE and want > nfrac:
        body += "0" * (want - nfrac)
        nfrac = want
    if trim != _TRIM_NONE and nfrac > 0:
        stripped = body.rstrip("0")
        nfrac -= len(body) - len(stripped)
        body = stripped
        if body.endswith("."):
            if trim == _TRIM_ONE_ZERO:
                body += "0"
                nfrac += 1
            elif trim == _TRIM_DPT_ZEROS:
                body = body[:-1]
    s = sc + body
    if pad_right >= nfrac:
        if trim == _TRIM_DPT_ZEROS and nfrac == 0:
            s += " "
        s += " " * (pad_right - nfrac)
    lead = whole + len(sc)
    if pad_left > lead:
        s = " " * (pad_left - lead) + s
    return s


def scientific(v, kind, precision=-1, min_digits=-1, unique=True, trim=_TRIM_NONE, sign=False, pad_left=-1,
               exp_digits=-1):
    """np.format_float_scientific(v of dtype kind, ...) (-1: not given)."""
    if not math.isfinite(v):
        return _inf_nan(v, sign)
    sc = _sign_char(v, sign)
    mant, ex, mbit, unequal = kind.decompose(v)
    digits, pexp = _dragon4(mant, ex, mbit, unequal, unique, False, -1 if precision < 0 else precision + 1,
                            -1 if min_digits < 0 else min_digits + 1)
    s = " " * (pad_left - 1 - len(sc)) if pad_left > 1 + len(sc) else ""
    s += sc + digits[0]
    nfrac = len(digits) - 1
    if nfrac > 0:
        s += "." + digits[1:]
    if trim != _TRIM_DPT_ZEROS and nfrac == 0:
        s += "."
    add = max(min_digits if unique else precision, 0)
    if trim == _TRIM_ONE_ZERO:
        if nfrac == 0:
            s += "0"
            nfrac = 1
    elif trim == _TRIM_NONE and add > nfrac:
        s += "0" * (add - nfrac)
        nfrac = add
    if trim != _TRIM_NONE and nfrac > 0:
        s = s.rstrip("0")
        if trim == _TRIM_ONE_ZERO and s.endswith("."):
            s += "0"
    width = 2 if exp_digits < 0 else min(exp_digits, 5)  # at least this many exponent digits
    return s + ("e+" if pexp >= 0 else "e-") + str(abs(pexp)).rjust(width, "0")


# --------------------------------------------------------------------------
# the element formatters of arrayprint (FloatingFormat and friends)


class FloatFormat:
    """arrayprint.FloatingFormat in floatmode 'maxprec': one layout for all
    the values (Python floats, exact values of `kind`)."""

    def __init__(self, values, kind, sign="-", precision=PRECISION, suppress=False):
        self.kind = kind
        self.sign = sign == "+"
        self.exp_format = False
        finite = [v for v in values if math.isfinite(v)]
        nonzero = [abs(v) for v in finite if v != 0]
        if nonzero:
            hi, lo = max(nonzero), min(nonzero)
            try:
                ratio = hi / lo
            except OverflowError:
                ratio = math.inf
            # NumPy computes hi / lo in the dtype (overflowing to inf)
            if (hi >= kind.exp_cutoff or
                    (not suppress and (lo < kind.small or kind.round(ratio) > 1000.0))):
                self.exp_format = True
        if not finite:
            self.pad_left = self.pad_right = 0
            self.trim = _TRIM_ZEROS
            self.exp_size = -1
            self.precision = precision
            self.min_digits = -1
        elif self.exp_format:
            strs = [scientific(v, kind, precision=precision, trim=_TRIM_ZEROS, sign=self.sign) for v in finite]
            mant = [s.partition("e") for s in strs]
            parts = [m[0].split(".") for m in mant]
            self.exp_size = max(len(m[2]) for m in mant) - 1
            self.trim = _TRIM_NONE
            self.precision = self.min_digits = max(len(p[1]) for p in parts)
            self.pad_left = max(len(p[0]) for p in parts)
            self.pad_right = self.exp_size + 2 + self.precision
        else:
            strs = [positional(v, kind, precision=precision, trim=_TRIM_ZEROS, sign=self.sign) for v in finite]
            parts = [s.split(".") for s in strs]
            self.pad_left = max(len(p[0]) for p in parts)
            self.pad_right = max(len(p[1]) for p in parts)
            self.exp_size = -1
            self.precision = precision
            self.trim = _TRIM_ZEROS
            self.min_digits = 0
        if len(finite) != len(values):
            neginf = self.sign or any(v < 0 for v in values if math.isinf(v))
            offset = self.pad_right + 1  # the decimal point
            self.pad_left = max(self.pad_left, len(NANSTR) - offset, len(INFSTR) + neginf - offset)

    def __call__(self, v):
        if not math.isfinite(v):
            if math.isnan(v):
                r = ("+" if self.sign else "") + NANSTR
            else:
                r = ("-" if v < 0 else "+" if self.sign else "") + INFSTR
            return " " * (self.pad_left + self.pad_right + 1 - len(r)) + r
        if self.exp_format:
            return scientific(v, self.kind, precision=self.precision, min_digits=self.min_digits, trim=self.trim,
                              sign=self.sign, pad_left=self.pad_left, exp_digits=self.exp_size)
        return positional(v, self.kind, precision=self.precision, min_digits=self.min_digits, trim=self.trim,
                          sign=self.sign, pad_left=self.pad_left, pad_right=self.pad_right)


class ComplexFormat:
    """arrayprint.ComplexFloatingFormat: the real parts and the imaginary
    parts each share a layout; the imaginary part always has its sign."""

    def __init__(self, values, kind):
        self.real = FloatFormat([v.real for v in values], kind)
        self.imag = FloatFormat([v.imag for v in values], kind, sign="+")

    def __call__(self, v):
        i = self.imag(v.imag)
        n = len(i.rstrip())
        return self.real(v.real) + i[:n] + "j" + i[n:]


class IntFormat:
    """arrayprint.IntegerFormat: right-aligned to the widest of min, max."""

    def __init__(self, values):
        self.width = max(len(str(max(values))), len(str(min(values)))) if values else 0

    def __call__(self, v):
        return str(v).rjust(self.width)


class BoolFormat:
    """arrayprint.BoolFormat: ' True' lines up with 'False' (not in 0-d)."""

    def __init__(self, ndim):
        self.true = " True" if ndim else "True"

    def __call__(self, v):
        return self.true if v else "False"


def element_format(values, dtype, ndim):
    """The formatter of arrayprint._get_format_function for these values
    (the ones printed) of dtype."""
    k = dtype.kind
    if k == "b":
        return BoolFormat(ndim)
    if k in "iu":
        return IntFormat(values)
    if k == "c":
        return ComplexFormat(values, KIND_OF[dtype.name])
    return FloatFormat(values, KIND_OF[dtype.name])


# --------------------------------------------------------------------------
# scalars (the str of a 0-d array: the str of NumPy's scalar)


def _either(v, kind, trim_pos, trim_sci, sign=False):
    """A float scalar's str: positional for 0, nan and 1e-4 <= |v| <
    max_positional, else scientific; all its unique digits."""
    a = abs(v)
    if math.isnan(v) or v == 0 or (1e-4 <= a < kind.max_positional):
        return positional(v, kind, trim=trim_pos, sign=sign, fractional=False)
    return scientific(v, kind, trim=trim_sci, sign=sign)


def scalar_str(v, dtype):
    """str() of a NumPy scalar of dtype holding v (a Python scalar)."""
    k = dtype.kind
    if k == "b":
        return "True" if v else "False"
    if k in "iu":
        return str(v)
    kind = KIND_OF[dtype.name]
    if k == "f":
        return _either(v, kind, _TRIM_ONE_ZERO, _TRIM_DPT_ZEROS)
    re, im = v.real, v.imag
    d = _TRIM_DPT_ZEROS
    if re == 0 and math.copysign(1.0, re) > 0:
        return _either(im, kind, d, d) + "j"
    if math.isfinite(re):
        rs = _either(re, kind, d, d)
    else:
        rs = "nan" if math.isnan(re) else "inf" if re > 0 else "-inf"
    if math.isfinite(im):
        ims = _either(im, kind, d, d, sign=True)
    else:
        ims = "+nan" if math.isnan(im) else "+inf" if im > 0 else "-inf"
    return f"({rs}{ims}j)"


# --------------------------------------------------------------------------
# layout (arrayprint._formatArray, legacy=False)


def _extend_line(s, line, word, width, next_prefix):
    if len(line) + len(word) > width and len(line) > len(next_prefix):  # wrap only where it helps
        s += line.rstrip() + "\n"
        line = next_prefix
    return s, line + word


def _format_array(words, oshape, gshape, width, next_prefix, separator, edge, summarise):
    """The nested-bracket text of an array whose formatted elements are
    `words` (C order, shape gshape: the shown part of an array of shape
    oshape; along each summarised axis the first and last `edge`)."""
    ndim = len(oshape)
    strides = [1] * ndim
    for ax in range(ndim - 2, -1, -1):
        strides[ax] = strides[ax + 1] * gshape[ax + 1]
    sep_width = max(len(separator.rstrip()), len("]"))

    def rec(offset, axis, hanging, curr_width):
        if axis == ndim:
            return words[offset]
        next_hanging = hanging + " "
        next_width = curr_width - len("]")
        a_len, g_len, st = oshape[axis], gshape[axis], strides[axis]
        show_summary = summarise and 2 * edge < a_len
        leading, trailing = (edge, edge) if show_summary else (0, a_len)

        def item(i):  # i: an index into the original axis (negatives from the end)
            return offset + (i if i >= 0 else g_len + i) * st

        if ndim - axis == 1:
            elem_width = curr_width - sep_width
            s, line = "", hanging
            for i in range(leading):
                s, line = _extend_line(s, line, rec(item(i), axis + 1, next_hanging, next_width), elem_width,
                                       hanging)
                line += separator
            if show_summary:
                s, line = _extend_line(s, line, "...", elem_width, hanging)
                line += separator
            for i in range(trailing, 1, -1):
                s, line = _extend_line(s, line, rec(item(-i), axis + 1, next_hanging, next_width), elem_width,
                                       hanging)
                line += separator
            s, line = _extend_line(s, line, rec(item(-1), axis + 1, next_hanging, next_width), elem_width, hanging)
            s += line
        else:
            s = ""
            line_sep = separator.rstrip() + "\n" * (ndim - axis - 1)
            for i in range(leading):
                s += hanging + rec(item(i), axis + 1, next_hanging, next_width) + line_sep
            if show_summary:
                s += hanging + "..." + line_sep
            for i in range(trailing, 1, -1):
                s += hanging + rec(item(-i), axis + 1, next_hanging, next_width) + line_sep
            s += hanging + rec(item(-1), axis + 1, next_hanging, next_width)
        return "[" + s[len(hanging):] + "]"

    return rec(0, 0, next_prefix, width)


# --------------------------------------------------------------------------
# what is shown, copied from the device


def _slice_axis(x, axis, start, stop):
    rr = (NdRange * (axis + 1))(*([NdRange(ND_NONE, ND_NONE, 1)] * axis + [NdRange(start, stop, 1)]))
    return call(C.nd_slice, x._h, axis + 1, rr)


def _edges(x, shape, axis, edge):
    """The corners of x (np's _leading_trailing): along each axis longer
    than 2 * edge its first and last `edge`, joined on x's device. Slices
    are views: only the pieces joined at the deepest level are copied."""
    ndim = len(shape)
    while axis < ndim and shape[axis] <= 2 * edge:
        axis += 1
    if axis == ndim:
        return x
    n = shape[axis]
    sub = shape[:axis] + (edge,) + shape[axis + 1:]
    lo = _edges(_slice_axis(x, axis, 0, edge), sub, axis + 1, edge)
    hi = _edges(_slice_axis(x, axis, n - edge, n), sub, axis + 1, edge)
    return call(C.nd_concatenate, 2, (c_void_p * 2)(lo._h, hi._h), axis)


def shown(x, threshold=THRESHOLD, edge=EDGEITEMS):
    """(the elements printed as Python scalars in C order, their shape,
    whether the array is summarised)."""
    shape = x.shape
    size = 1
    for n in shape:
        size *= n
    summarise = size > threshold
    g = _edges(x, shape, 0, edge) if summarise else x
    return flat_values(g), g.shape, summarise


# --------------------------------------------------------------------------
# repr, str, format

# the dtypes whose values say what they are (np's _typelessdata)
_IMPLIED = ("int64", "float64", "complex128", "bool")


def array2string(x, separator=" ", prefix="", suffix="", linewidth=LINEWIDTH, data=None):
    """np.array2string(x, separator=..., prefix=..., suffix=...) (data:
    what shown(x) returned, when the caller has it)."""
    shape = x.shape
    if 0 in shape:
        return "[]"
    values, gshape, summarise = shown(x) if data is None else data
    fmt = element_format(values, x.dtype, len(shape))
    words = [fmt(v) for v in values]
    return _format_array(words, shape, gshape, linewidth - len(suffix), " " + " " * len(prefix), separator,
                         EDGEITEMS, summarise)


def array_repr(x, prefix="Array("):
    """np.array_repr with `Array(` for `array(` and the device of arrays
    off the host."""
    shape = x.shape
    size = 1
    for n in shape:
        size *= n
    readable = True
    try:
        data = shown(x) if size else None
    except Exception as e:  # noqa: BLE001 - a repr that raises hides the array: say what it is instead
        readable = False
        lst = f"<data not readable: {e}>"
    if readable:
        lst = array2string(x, ", ", prefix, ")", data=data)
    extras = []
    if (size == 0 and shape != (0,)) or size > THRESHOLD or not readable:
        extras.append(f"shape={shape}")
    name = x.dtype.name
    if name not in _IMPLIED or size == 0:
        extras.append(f"dtype={name}")
    dev = x.device
    if dev.type != _HOST:
        extras.append(f"device='{dev}'")
    if not extras:
        return prefix + lst + ")"
    arr = prefix + lst + ","
    extra = ", ".join(extras) + ")"
    last = len(arr) - (arr.rfind("\n") + 1)
    spacer = "\n" + " " * len(prefix) if last + len(extra) + 1 > LINEWIDTH else " "
    return arr + spacer + extra


def array_str(x):
    """np.array_str: a 0-d array prints as its scalar."""
    if not x.shape:
        return scalar_str(flat_values(x)[0], x.dtype)
    return array2string(x)


def array_format(x, spec):
    """format(x, spec): a 0-d array formats its Python scalar (as NumPy's
    do: f"{x:.3f}"); an empty spec gives str(x); other arrays take no
    spec."""
    if not spec:
        return array_str(x)
    if x.shape:
        raise TypeError("unsupported format string passed to ndgpu.Array.__format__")
    return format(flat_values(x)[0], spec)
