"""ndgpu.special: scipy.special's functions on ndgpu arrays (as
cupyx.scipy.special): the gamma, zeta and Bessel family."""
from ._special_gamma import *  # noqa: F401,F403
from ._special_gamma import __all__ as _gamma_all

__all__ = sorted(_gamma_all)
