"""The array API's fft extension (numpy.fft in the C library)."""
from ._array import call, as_device
from ._interop import retry
from . import _dtypes as _dt
from ._lib import C, i64array, intarray

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORM = {"backward": 0, "ortho": 1, "forward": 2}


def _norm(norm):
    try:
        return _NORM[norm]
    except KeyError:
        raise ValueError(f"norm must be 'backward', 'ortho' or 'forward', not {norm!r}") from None


def _one(fn, x, n, axis, norm):
    return call(fn, x._h, -1 if n is None else n, axis, _norm(norm))


def _nd(fn, x, s, axes, norm):
    if axes is None and s is None:
        return call(fn, x._h, -1, None, None, _norm(norm))
    if axes is None:
        axes = tuple(range(-len(s), 0))
    axes = tuple(axes)
    sv = None if s is None else i64array(tuple(s))
    if s is not None and len(s) != len(axes):
        raise ValueError("fftn: s and axes must have the same length")
    return call(fn, x._h, len(axes), sv, intarray(axes), _norm(norm))


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_fft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(fft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_ifft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(ifft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_rfft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(rfft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_irfft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(irfft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_hfft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(hfft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    try:
        return _one(C.nd_ihfft, x, n, axis, norm)
    except (AttributeError, TypeError) as e:
        return retry(ihfft, e, (x,), {"n": n, "axis": axis, "norm": norm})


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    try:
        return _nd(C.nd_fftn, x, s, axes, norm)
    except (AttributeError, TypeError) as e:
        return retry(fftn, e, (x,), {"s": s, "axes": axes, "norm": norm})


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    try:
        return _nd(C.nd_ifftn, x, s, axes, norm)
    except (AttributeError, TypeError) as e:
        return retry(ifftn, e, (x,), {"s": s, "axes": axes, "norm": norm})


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    try:
        return _nd(C.nd_rfftn, x, s, axes, norm)
    except (AttributeError, TypeError) as e:
        return retry(rfftn, e, (x,), {"s": s, "axes": axes, "norm": norm})


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    try:
        return _nd(C.nd_irfftn, x, s, axes, norm)
    except (AttributeError, TypeError) as e:
        return retry(irfftn, e, (x,), {"s": s, "axes": axes, "norm": norm})


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    try:
        dt = _dt.float64 if dtype is None else _dt.as_dtype(dtype)
        return call(C.nd_fftfreq, n, float(d), dt.code, as_device(device)._nd)
    except (AttributeError, TypeError) as e:
        return retry(fftfreq, e, (n,), {"d": d, "dtype": dtype, "device": device})


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    try:
        dt = _dt.float64 if dtype is None else _dt.as_dtype(dtype)
        return call(C.nd_rfftfreq, n, float(d), dt.code, as_device(device)._nd)
    except (AttributeError, TypeError) as e:
        return retry(rfftfreq, e, (n,), {"d": d, "dtype": dtype, "device": device})


def _shift(fn, x, axes):
    if axes is None:
        return call(fn, x._h, -1, None)
    if isinstance(axes, int):
        axes = (axes,)
    axes = tuple(axes)
    return call(fn, x._h, len(axes), intarray(axes))


def fftshift(x, /, *, axes=None):
    try:
        return _shift(C.nd_fftshift, x, axes)
    except (AttributeError, TypeError) as e:
        return retry(fftshift, e, (x,), {"axes": axes})


def ifftshift(x, /, *, axes=None):
    try:
        return _shift(C.nd_ifftshift, x, axes)
    except (AttributeError, TypeError) as e:
        return retry(ifftshift, e, (x,), {"axes": axes})
