"""NumPy's random Generator on ndgpu arrays (beyond the array API).

    import ndgpu as xp
    rng = xp.random.default_rng(42)                    # on the default device
    x = rng.normal(0.0, 1.0, size=(1000,), dtype=xp.float32)
    k = rng.poisson(xp.asarray([1.0, 50.0]), size=(4, 2))   # broadcast parameters

A Generator owns one libndgpu nd_rng: the counter-based Philox4x32-10
stream, so a value depends only on (seed, offset, index) and is the same
bits on the CPU and on a GPU (docs/random.md). The methods are NumPy's
Generator methods with its parameter names, defaults and errors, plus
``device=`` and ``dtype=`` (float64 for continuous draws, int64 for counts,
as NumPy; float32/float16/bfloat16 and other integer dtypes on request).

Where NumPy differs:
 - ``size=None`` gives a 0-d array, not a Python scalar (as CuPy);
 - the values are libndgpu's stream, not NumPy's PCG64 (the same
   distributions, different numbers for a seed);
 - a draw's parameters: Python numbers use the scalar form of the C
   function; anything else (ndgpu arrays, NumPy arrays, lists) the array
   form, on the parameters' device, broadcast together and to ``size``.
"""
import operator
import os
from ctypes import byref, c_bool, c_double, c_int, c_int64, c_uint64, c_void_p

from . import _dtypes as _dt
from ._array import Array, as_device, call
from ._lib import H, I64P, O, NdDevice, check, i64array, lib

__all__ = ["Generator", "default_rng"]


def _bind(name, res, args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = args
    return f


_RNG_CREATE = _bind("nd_rng_create", c_int, [O, c_uint64])
_RNG_DESTROY = _bind("nd_rng_destroy", None, [c_void_p])
_RNG_OFFSET = _bind("nd_rng_offset", c_uint64, [c_void_p])
_RNG_SET_OFFSET = _bind("nd_rng_set_offset", c_int, [c_void_p, c_uint64])
_P = c_void_p
_SHAPED = [O, _P, c_int, c_int, I64P]  # out, rng, dtype, ndim, shape
_UNIFORM = _bind("nd_random_uniform", c_int, _SHAPED + [c_double, c_double, NdDevice])
_NORMAL = _bind("nd_random_normal", c_int, _SHAPED + [c_double, c_double, NdDevice])
_INTEGERS = _bind("nd_random_integers", c_int, _SHAPED + [c_int64, c_int64, NdDevice])
_PERMUTATION = _bind("nd_random_permutation", c_int, [O, _P, c_int64, NdDevice])
_PERMUTATION_OF = _bind("nd_random_permutation_of", c_int, [O, _P, H])
_CHOICE = _bind("nd_random_choice", c_int, [O, _P, H, c_int64, c_int, I64P, c_bool, H, NdDevice])
_SHUFFLE = _bind("nd_random_shuffle", c_int, [_P, H, c_int])
_MULTINOMIAL = _bind("nd_random_multinomial", c_int, _SHAPED + [c_int64, H])
_DIRICHLET = _bind("nd_random_dirichlet", c_int, _SHAPED + [H])
_MVN = _bind("nd_random_multivariate_normal", c_int, _SHAPED + [H, H])

# The parameter distributions: name -> (C name, parameter kinds: d = double,
# l = int64; "int" for a discrete result). The scalar form is
# nd_random_<c>(out, rng, dtype, ndim, shape, params..., dev), the array
# form nd_random_<c>_array(out, rng, dtype, arrays...).
_DISTS = {
    "exponential": ("exponential", "d", False), "gamma": ("gamma", "dd", False), "beta": ("beta", "dd", False),
    "chisquare": ("chisquare", "d", False), "standard_t": ("standard_t", "d", False), "f": ("f", "dd", False),
    "lognormal": ("lognormal", "dd", False), "laplace": ("laplace", "dd", False),
    "logistic": ("logistic", "dd", False), "gumbel": ("gumbel", "dd", False), "weibull": ("weibull", "d", False),
    "pareto": ("pareto", "d", False), "rayleigh": ("rayleigh", "d", False), "cauchy": ("cauchy", "dd", False),
    "vonmises": ("vonmises", "dd", False), "truncated_normal": ("truncated_normal", "dddd", False),
    "binomial": ("binomial", "ld", True), "poisson": ("poisson", "d", True), "geometric": ("geometric", "d", True),
    "negative_binomial": ("negative_binomial", "dd", True), "hypergeometric": ("hypergeometric", "lll", True),
}
_SCALAR_FN = {}
_ARRAY_FN = {}
for _k, (_c, _kinds, _int) in _DISTS.items():
    _SCALAR_FN[_k] = _bind("nd_random_" + _c, c_int,
                           _SHAPED + [c_int64 if t == "l" else c_double for t in _kinds] + [NdDevice])
    _ARRAY_FN[_k] = _bind("nd_random_" + _c + "_array", c_int, [O, _P, c_int] + [H] * len(_kinds))


def _size(size):
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        return tuple(operator.index(s) for s in size)
    return (operator.index(size),)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Generator:
    """NumPy's numpy.random.Generator on libndgpu's Philox stream.

    Generator(seed=None, *, device=None): seed an int in [0, 2**64) (None:
    64 bits from os.urandom); device where draws with no array parameter
    land (None: the library's default device)."""

    def __init__(self, seed=None, *, device=None):
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if isinstance(seed, bool) or not hasattr(seed, "__index__"):
            raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
        seed = operator.index(seed)
        if not 0 <= seed < (1 << 64):
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        self._rng = None
        h = c_void_p()
        check(_RNG_CREATE(byref(h), seed))
        self._rng = h.value
        self._seed = seed
        self.device = as_device(device)

    def __del__(self):
        if getattr(self, "_rng", None):
            _RNG_DESTROY(self._rng)
            self._rng = None

    def __repr__(self):
        return f"Generator(seed={self._seed}, offset={self.offset}, device={self.device})"

    @property
    def offset(self):
        """The stream position in Philox blocks (settable: jump ahead or back)."""
        return _RNG_OFFSET(self._rng)

    @offset.setter
    def offset(self, value):
        check(_RNG_SET_OFFSET(self._rng, operator.index(value) & ((1 << 64) - 1)))

    # ---- helpers ----
    def _dev(self, device):
        return self.device if device is None else as_device(device)

    def _shaped(self, fn, size, dtype, params, device):
        sh = _size(size)
        return call(fn, self._rng, dtype.code, len(sh), i64array(sh), *params, self._dev(device)._nd)

    def _param_arrays(self, values, kinds, size, device):
        """The parameters as arrays on one device, broadcast to size."""
        from ._creation import asarray
        from ._manipulation import broadcast_arrays, broadcast_to
        dev = None
        for v in values:
            if isinstance(v, Array):
                dev = v.device
                break
        if dev is None:
            dev = self._dev(device)
        arrs = []
        for v, t in zip(values, kinds):
            # ndgpu arrays as they are (the library checks their dtypes)
            arrs.append(v if isinstance(v, Array) else
                        asarray(v, dtype=_dt.int64 if t == "l" else _dt.float64, device=dev))
        if size is not None:
            sh = _size(size)
            arrs = [broadcast_to(a, sh) for a in arrs]
        elif len(arrs) > 1:
            arrs = broadcast_arrays(*arrs)
        return arrs

    def _draw(self, name, values, size, dtype, device):
        c, kinds, is_int = _DISTS[name]
        dt = _dt.as_dtype(dtype) if dtype is not None else (_dt.int64 if is_int else _dt.float64)
        if all(_is_number(v) for v in values):
            params = [int(v) if t == "l" else float(v) for v, t in zip(values, kinds)]
            if any(t == "l" and isinstance(v, float) and v != int(v) for v, t in zip(values, kinds)):
                raise TypeError(f"{name}: an integer parameter got {values}")
            return self._shaped(_SCALAR_FN[name], size, dt, params, device)
        arrs = self._param_arrays(values, kinds, size, device)
        return call(_ARRAY_FN[name], self._rng, dt.code, *[a._h for a in arrs])

    # ---- uniform, normal, integers ----
    def random(self, size=None, dtype=None, *, device=None):
        """Uniform [0, 1) floats (float64 unless dtype says otherwise)."""
        return self.uniform(0.0, 1.0, size, dtype, device=device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None, *, device=None):
        """Uniform [low, high) floats (scalar bounds)."""
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.float64
        return self._shaped(_UNIFORM, size, dt, [float(low), float(high)], device)

    def standard_normal(self, size=None, dtype=None, *, device=None):
        return self.normal(0.0, 1.0, size, dtype, device=device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None, *, device=None):
        """Normal(loc, scale) floats (scalar parameters)."""
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.float64
        return self._shaped(_NORMAL, size, dt, [float(loc), float(scale)], device)

    def integers(self, low, high=None, size=None, dtype=None, endpoint=False, *, device=None):
        """Integers in [low, high) ([low, high] with endpoint=True); high=None: [0, low)."""
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        if endpoint:
            high += 1
        return self._shaped(_INTEGERS, size, dt, [low, high], device)

    # ---- the distributions with parameters ----
    def exponential(self, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("exponential", [scale], size, dtype, device)

    def standard_exponential(self, size=None, dtype=None, *, device=None):
        return self._draw("exponential", [1.0], size, dtype, device)

    def gamma(self, shape, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("gamma", [shape, scale], size, dtype, device)

    def standard_gamma(self, shape, size=None, dtype=None, *, device=None):
        return self._draw("gamma", [shape, 1.0], size, dtype, device)

    def beta(self, a, b, size=None, dtype=None, *, device=None):
        return self._draw("beta", [a, b], size, dtype, device)

    def chisquare(self, df, size=None, dtype=None, *, device=None):
        return self._draw("chisquare", [df], size, dtype, device)

    def standard_t(self, df, size=None, dtype=None, *, device=None):
        return self._draw("standard_t", [df], size, dtype, device)

    def f(self, dfnum, dfden, size=None, dtype=None, *, device=None):
        return self._draw("f", [dfnum, dfden], size, dtype, device)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype=None, *, device=None):
        return self._draw("lognormal", [mean, sigma], size, dtype, device)

    def laplace(self, loc=0.0, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("laplace", [loc, scale], size, dtype, device)

    def logistic(self, loc=0.0, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("logistic", [loc, scale], size, dtype, device)

    def gumbel(self, loc=0.0, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("gumbel", [loc, scale], size, dtype, device)

    def weibull(self, a, size=None, dtype=None, *, device=None):
        return self._draw("weibull", [a], size, dtype, device)

    def pareto(self, a, size=None, dtype=None, *, device=None):
        return self._draw("pareto", [a], size, dtype, device)

    def rayleigh(self, scale=1.0, size=None, dtype=None, *, device=None):
        return self._draw("rayleigh", [scale], size, dtype, device)

    def standard_cauchy(self, size=None, dtype=None, *, device=None):
        return self._draw("cauchy", [0.0, 1.0], size, dtype, device)

    def cauchy(self, loc=0.0, scale=1.0, size=None, dtype=None, *, device=None):
        """Cauchy(loc, scale) (NumPy has only standard_cauchy)."""
        return self._draw("cauchy", [loc, scale], size, dtype, device)

    def vonmises(self, mu, kappa, size=None, dtype=None, *, device=None):
        return self._draw("vonmises", [mu, kappa], size, dtype, device)

    def truncated_normal(self, mean=0.0, std=1.0, low=-2.0, high=2.0, size=None, dtype=None, *, device=None):
        """Normal(mean, std) restricted to [low, high] (absolute bounds, as
        torch.nn.init.trunc_normal_; not in NumPy)."""
        return self._draw("truncated_normal", [mean, std, low, high], size, dtype, device)

    def binomial(self, n, p, size=None, dtype=None, *, device=None):
        return self._draw("binomial", [n, p], size, dtype, device)

    def poisson(self, lam=1.0, size=None, dtype=None, *, device=None):
        return self._draw("poisson", [lam], size, dtype, device)

    def geometric(self, p, size=None, dtype=None, *, device=None):
        return self._draw("geometric", [p], size, dtype, device)

    def negative_binomial(self, n, p, size=None, dtype=None, *, device=None):
        return self._draw("negative_binomial", [n, p], size, dtype, device)

    def hypergeometric(self, ngood, nbad, nsample, size=None, dtype=None, *, device=None):
        return self._draw("hypergeometric", [ngood, nbad, nsample], size, dtype, device)

    # ---- rows: multinomial, dirichlet, multivariate_normal ----
    def _vector(self, v, device):
        from ._creation import asarray
        return v if isinstance(v, Array) else asarray(v, dtype=_dt.float64, device=self._dev(device))

    def multinomial(self, n, pvals, size=None, dtype=None, *, device=None):
        """Rows of len(pvals) counts summing to n (scalar n), shape size + (k,)."""
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
        pv = self._vector(pvals, device)
        sh = _size(size)
        return call(_MULTINOMIAL, self._rng, dt.code, len(sh), i64array(sh), operator.index(n), pv._h)

    def dirichlet(self, alpha, size=None, dtype=None, *, device=None):
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.float64
        al = self._vector(alpha, device)
        sh = _size(size)
        return call(_DIRICHLET, self._rng, dt.code, len(sh), i64array(sh), al._h)

    def multivariate_normal(self, mean, cov, size=None, dtype=None, *, device=None):
        """Rows mean + L z, L the Cholesky factor of cov (NumPy's
        method="cholesky"; a semi-definite cov raises ValueError)."""
        dt = _dt.as_dtype(dtype) if dtype is not None else _dt.float64
        m = self._vector(mean, device)
        c = self._vector(cov, device)
        sh = _size(size)
        return call(_MVN, self._rng, dt.code, len(sh), i64array(sh), m._h, c._h)

    # ---- permutations and choice ----
    def permutation(self, x, *, device=None):
        """permutation(n): a shuffled arange(n) (int64); permutation(array):
        a copy with its first axis shuffled."""
        if isinstance(x, Array):
            return call(_PERMUTATION_OF, self._rng, x._h)
        return call(_PERMUTATION, self._rng, operator.index(x), self._dev(device)._nd)

    def shuffle(self, x, axis=0):
        """Shuffle the ndgpu array x in place along axis."""
        if not isinstance(x, Array):
            raise TypeError(f"shuffle: an ndgpu array is needed, not {type(x).__name__}")
        check(_SHUFFLE(self._rng, x._h, operator.index(axis)))

    def choice(self, a, size=None, replace=True, p=None, *, device=None):
        """Samples from the rows of the array a, or from arange(a) for an int."""
        sh = _size(size)
        pv = None if p is None else self._vector(p, device)
        if isinstance(a, Array):
            if pv is not None and pv.device != a.device:
                raise ValueError("choice: p and a are on different devices")
            return call(_CHOICE, self._rng, a._h, 0, len(sh), i64array(sh), bool(replace),
                        None if pv is None else pv._h, a.device._nd)
        n = operator.index(a)
        dev = pv.device if pv is not None else self._dev(device)
        return call(_CHOICE, self._rng, None, n, len(sh), i64array(sh), bool(replace),
                    None if pv is None else pv._h, dev._nd)


def default_rng(seed=None, *, device=None):
    """A new Generator (numpy.random.default_rng); a Generator is returned as is."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed, device=device)
