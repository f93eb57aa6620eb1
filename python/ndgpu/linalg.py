"""The array API's linalg extension (numpy.linalg in the C library)."""
from ctypes import byref, c_void_p

from . import _dtypes as _dt
from ._array import Array, _axes_arg, call, wrap
from ._interop import retry
from ._lib import C, NdNormOrd, error
from ._manipulation import matmul, matrix_transpose, tensordot, vecdot as _vecdot

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]


class _Result(tuple):
    __slots__ = ()
    _fields = ()

    def __new__(cls, *vals):
        return tuple.__new__(cls, vals)

    def __getattr__(self, name):
        try:
            return self[self._fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None


class EighResult(_Result):
    _fields = ("eigenvalues", "eigenvectors")


class QRResult(_Result):
    _fields = ("Q", "R")


class SlogdetResult(_Result):
    _fields = ("sign", "logabsdet")


class SVDResult(_Result):
    _fields = ("U", "S", "Vh")


def _out2(fn, *args):
    a, b = c_void_p(), c_void_p()
    st = fn(byref(a), byref(b), *args)
    if st:
        raise error(st)
    return wrap(a.value), wrap(b.value)


def cholesky(x, /, *, upper=False):
    try:
        return call(C.nd_linalg_cholesky, x._h, bool(upper))
    except (AttributeError, TypeError) as e:
        return retry(cholesky, e, (x,), {"upper": upper})


def cross(x1, x2, /, *, axis=-1):
    try:
        return call(C.nd_linalg_cross, x1._h, x2._h, axis)
    except (AttributeError, TypeError) as e:
        return retry(cross, e, (x1, x2), {"axis": axis})


def det(x, /):
    try:
        return call(C.nd_linalg_det, x._h)
    except (AttributeError, TypeError) as e:
        return retry(det, e, (x,))


def diagonal(x, /, *, offset=0):
    try:
        return call(C.nd_diagonal, x._h, offset, -2, -1)
    except (AttributeError, TypeError) as e:
        return retry(diagonal, e, (x,), {"offset": offset})


def eigh(x, /):
    try:
        return EighResult(*_out2(C.nd_linalg_eigh, x._h, b"L"))
    except (AttributeError, TypeError) as e:
        return retry(eigh, e, (x,))


def eigvalsh(x, /):
    try:
        return call(C.nd_linalg_eigvalsh, x._h, b"L")
    except (AttributeError, TypeError) as e:
        return retry(eigvalsh, e, (x,))


def inv(x, /):
    try:
        return call(C.nd_linalg_inv, x._h)
    except (AttributeError, TypeError) as e:
        return retry(inv, e, (x,))


_NAMED = {"fro": 2, "nuc": 3}


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    try:
        if isinstance(ord, str):
            o = NdNormOrd(_NAMED[ord], 0.0)
        elif ord is None:
            o = NdNormOrd(2, 0.0)
        else:
            o = NdNormOrd(1, float(ord))
        return call(C.nd_linalg_matrix_norm, x._h, o, bool(keepdims))
    except (AttributeError, TypeError) as e:
        return retry(matrix_norm, e, (x,), {"keepdims": keepdims, "ord": ord})


def matrix_power(x, n, /):
    try:
        return call(C.nd_linalg_matrix_power, x._h, n)
    except (AttributeError, TypeError) as e:
        return retry(matrix_power, e, (x, n))


def _tol(rtol, x):
    if rtol is None:
        return -1.0
    if isinstance(rtol, Array):
        raise NotImplementedError("rtol as an array (the C API takes one float: nd_linalg_matrix_rank)")
    return float(rtol)


def matrix_rank(x, /, *, rtol=None):
    try:
        if rtol is None:
            return call(C.nd_linalg_matrix_rank, x._h, -1.0, False)
        # the standard's rtol is relative to the largest singular value
        s = svdvals(x)
        from ._statistical import max as _max, sum as _sum
        smax = _max(s, axis=-1, keepdims=True)
        tol = smax * rtol if not isinstance(rtol, Array) else smax * rtol[..., None]
        return _sum(s > tol, axis=-1)
    except (AttributeError, TypeError) as e:
        return retry(matrix_rank, e, (x,), {"rtol": rtol})


def outer(x1, x2, /):
    try:
        return call(C.nd_outer, x1._h, x2._h)
    except (AttributeError, TypeError) as e:
        return retry(outer, e, (x1, x2))


def pinv(x, /, *, rtol=None):
    try:
        if isinstance(rtol, Array) and rtol.ndim == 0:
            rtol = float(rtol)
        if isinstance(rtol, Array):
            # one tolerance per matrix: the C API's nd_linalg_pinv takes one float
            from ._elementwise import conj
            from ._searching import where
            from ._statistical import max as _max
            u, s, vh = svd(x, full_matrices=False)
            cutoff = _max(s, axis=-1, keepdims=True) * rtol[..., None]
            sinv = where(s > cutoff, 1 / s, 0)
            vt = conj(matrix_transpose(vh))
            return matmul(vt * sinv[..., None, :], conj(matrix_transpose(u)))
        if rtol is None:
            m, n = x.shape[-2:]
            eps = _dt.finfo(x.dtype if x.dtype.kind in "fc" else _dt.float64).eps
            rtol = max(m, n) * eps
        return call(C.nd_linalg_pinv, x._h, _tol(rtol, x), False)
    except (AttributeError, TypeError) as e:
        return retry(pinv, e, (x,), {"rtol": rtol})


def qr(x, /, *, mode="reduced"):
    try:
        m = {"reduced": 0, "complete": 1}.get(mode)
        if m is None:
            raise ValueError("qr: mode must be 'reduced' or 'complete'")
        return QRResult(*_out2(C.nd_linalg_qr, x._h, m))
    except (AttributeError, TypeError) as e:
        return retry(qr, e, (x,), {"mode": mode})


def slogdet(x, /):
    try:
        return SlogdetResult(*_out2(C.nd_linalg_slogdet, x._h))
    except (AttributeError, TypeError) as e:
        return retry(slogdet, e, (x,))


def solve(x1, x2, /):
    try:
        return call(C.nd_linalg_solve, x1._h, x2._h)
    except (AttributeError, TypeError) as e:
        return retry(solve, e, (x1, x2))


def svd(x, /, *, full_matrices=True):
    try:
        u, s, vh = c_void_p(), c_void_p(), c_void_p()
        st = C.nd_linalg_svd(byref(u), byref(s), byref(vh), x._h, bool(full_matrices))
        if st:
            raise error(st)
        return SVDResult(wrap(u.value), wrap(s.value), wrap(vh.value))
    except (AttributeError, TypeError) as e:
        return retry(svd, e, (x,), {"full_matrices": full_matrices})


def svdvals(x, /):
    try:
        return call(C.nd_linalg_svdvals, x._h)
    except (AttributeError, TypeError) as e:
        return retry(svdvals, e, (x,))


def trace(x, /, *, offset=0, dtype=None):
    try:
        r = call(C.nd_trace, x._h, offset, -2, -1)
        if dtype is not None:
            d = _dt.as_dtype(dtype)
            if d is not r.dtype:
                # cast first (the standard sums in dtype)
                xs = call(C.nd_astype, x._h, d.code)
                r = call(C.nd_trace, xs._h, offset, -2, -1)
                if r.dtype is not d:
                    r = call(C.nd_astype, r._h, d.code)
        elif x.dtype.kind in "fc" and r.dtype is not x.dtype:
            r = call(C.nd_astype, r._h, x.dtype.code)
        return r
    except (AttributeError, TypeError) as e:
        return retry(trace, e, (x,), {"offset": offset, "dtype": dtype})


def vecdot(x1, x2, /, *, axis=-1):
    try:
        return _vecdot(x1, x2, axis=axis)
    except (AttributeError, TypeError) as e:
        return retry(vecdot, e, (x1, x2), {"axis": axis})


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    try:
        naxes, ax = _axes_arg(axis, x.ndim)
        return call(C.nd_linalg_vector_norm, x._h, float(ord), naxes, ax, bool(keepdims))
    except (AttributeError, TypeError) as e:
        return retry(vector_norm, e, (x,), {"axis": axis, "keepdims": keepdims, "ord": ord})
