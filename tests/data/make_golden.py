#!/usr/bin/env python3
"""Regenerate the golden .npy files of tests/test_npy.c with NumPy.

    python3 tests/data/make_golden.py [outdir]

The C tests do not need Python: the files are committed. Each file is a few
hundred bytes. bf16.npy needs ml_dtypes (np.save of an ml_dtypes.bfloat16
array writes descr '<V2', the convention libndgpu follows); without it the
committed file is kept.
"""
import os
import sys

import numpy as np
from numpy.lib import format as npf

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        if version is None:
            np.save(f, arr)
        else:
            npf.write_array(f, arr, version=version)


def canon(a):
    """The array as libndgpu writes it: C order, little-endian."""
    return np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"))


f4 = (np.arange(5, dtype="<f4") * 1.5 - 2.0).astype("<f4")
save("f4_1d.npy", f4)
save("f8_2x3.npy", np.array([[1.5, -2.25, 3e10], [np.nan, np.inf, -0.0]], dtype="<f8"))
save("f2.npy", np.array([1.0, -2.5, 65504.0, 2.0**-24, np.inf, np.nan], dtype="<f2"))
be_f4 = np.array([[1.0, -2.5], [3.25, 1e-3]], dtype=">f4")
save("f4_be.npy", be_f4)
save("f4_be_canon.npy", canon(be_f4))
be_i8 = np.array([1, -2, 2**62 + 3, -(2**63)], dtype=">i8")
save("i8_be.npy", be_i8)
save("i8_be_canon.npy", canon(be_i8))
be_u2 = np.array([1, 0x1234, 0xFFFF], dtype=">u2")
save("u2_be.npy", be_u2)
save("u2_be_canon.npy", canon(be_u2))
be_f2 = np.array([1.0, -0.5, 1000.0], dtype=">f2")
save("f2_be.npy", be_f2)
fo = np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3) * 7 - 3)
save("fortran_2x3_i4.npy", fo)
save("fortran_2x3_i4_canon.npy", canon(fo))
fo3 = np.asfortranarray((np.arange(24, dtype="<f8").reshape(2, 3, 4) - 5) / 4)
save("fortran_2x3x4_f8.npy", fo3)
save("fortran_2x3x4_f8_canon.npy", canon(fo3))
save("scalar_f8.npy", np.array(3.25, dtype="<f8"))
save("scalar_i2.npy", np.array(-7, dtype="<i2"))
save("zero_size_0x3_f4.npy", np.zeros((0, 3), dtype="<f4"))
save("zero_size_5x0_i8.npy", np.zeros((5, 0), dtype="<i8"))
save("bool.npy", np.array([True, False, True, True, False], dtype="|b1"))
save("u8.npy", np.array([0, 1, 2**64 - 1, 2**63], dtype="<u8"))
save("i1.npy", np.array([-128, 127, 0, 5], dtype="|i1"))
save("u1.npy", np.array([0, 255, 7, 128], dtype="|u1"))
save("i2.npy", np.array([-32768, 32767, -1], dtype="<i2"))
save("i4.npy", np.array([-(2**31), 2**31 - 1, 42], dtype="<i4"))
save("u4.npy", np.array([0, 2**32 - 1, 123456789], dtype="<u4"))
save("i8_long.npy", np.arange(3, dtype="<i8").reshape(1, 3) * 1000000000000)
v = np.array([[1, 2, 3], [4, 5, 6]], dtype="<i4")
save("v2_i4.npy", v, version=(2, 0))
save("v3_i4.npy", v, version=(3, 0))
save("v1_i4.npy", v)
big = np.arange(3, dtype="<u1").reshape((1,) * 30 + (3,))
save("ndim31_u1.npy", big)  # a header over 256 bytes (cnpy assumed < 256)
try:
    import ml_dtypes

    save("bf16.npy", np.array([1.5, -2.0, 3.140625, np.inf], dtype=ml_dtypes.bfloat16))
except ImportError:
    print("ml_dtypes not available: keeping bf16.npy", file=sys.stderr)
