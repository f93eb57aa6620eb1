#!/usr/bin/env python3
"""The FFT module against numpy.fft itself: every nd_fft*
function through ctypes on libndgpu.so, on the CPU (and on cuda:0 with
NDGPU_FFT_CUDA=1 when the library has a usable GPU), compared with NumPy's
result on the same input: dtype (NumPy 2's rules), shape and values within
|y - y_np| <= C eps log2(2N) rms(x) sqrt(N) |scale| + 2 eps_res |y_np|, C = 8.
One known difference is allowed for: for a float16 input NumPy 2 rounds the
norm's factor (1/n, 1/sqrt(n)) to float16, libndgpu scales exactly, so
such results may differ by 2^-11 relative.

    NDGPU_LIBRARY=build/libndgpu.so python3 tests/test_fft_numpy.py

The C functions are called through the package's loader (C.nd_fft*,
declared in python/ndgpu/_lib.py; tests/numpy_compare.py). Prints SKIPPED
and exits 0 without NumPy 2; exits 1 on a mismatch.
(make python-fft-test, part of make test through mk/fft.mk.)
"""
import ctypes
import math
import os
import sys
from ctypes import c_int, c_int64, c_void_p

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_compare import gate, C, DT, NdDevice, to_nd as put, from_nd as get  # noqa: E402

np = gate("python-fft-test")

NORMS = {"backward": 0, "ortho": 1, "forward": 2}

ONE_D = {k: getattr(C, "nd_" + k) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")}
N_D = {k: getattr(C, "nd_" + k) for k in ("fftn", "ifftn", "rfftn", "irfftn")}
TWO_D = {k: getattr(C, "nd_" + k) for k in ("fft2", "ifft2", "rfft2", "irfft2")}
FREQ = {k: getattr(C, "nd_" + k) for k in ("fftfreq", "rfftfreq")}
SHIFT = {k: getattr(C, "nd_" + k) for k in ("fftshift", "ifftshift")}

fails = []
count = [0]


def check(status, what):
    if status != 0:
        raise RuntimeError("%s: %s: %s" % (what, C.nd_status_name(status).decode(), C.nd_last_error().decode()))


def eps(dt):
    return {"float16": 2.0 ** -11, "float32": 2.0 ** -24, "complex64": 2.0 ** -24}.get(np.dtype(dt).name, 2.0 ** -53)


def compare(what, got, want, x, N, scale):
    count[0] += 1
    if got.dtype != want.dtype or got.shape != want.shape:
        fails.append("%s: %s%s, NumPy %s%s" % (what, got.dtype, got.shape, want.dtype, want.shape))
        return
    xr = np.asarray(x).astype(np.complex128)
    rms = math.sqrt(float(np.mean(np.abs(xr) ** 2))) if xr.size else 0.0
    prec = "complex64" if np.asarray(x).dtype.name in ("float16", "float32", "complex64") else "complex128"
    bound = 8 * eps(prec) * math.log2(2 * N) * rms * math.sqrt(N) * abs(scale)
    err = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
    tol = bound + 2 * eps(want.dtype) * np.abs(want.astype(np.complex128)) + 1e-300
    if np.asarray(x).dtype == np.float16 and scale != 1:
        # NumPy 2 rounds the norm's factor to the input's float dtype (1/n as float16:
        # _raw_fft's reciprocal(n, dtype=real_dtype)); libndgpu scales by the exact factor
        tol = tol + 2.0 ** -11 * np.abs(want.astype(np.complex128))
    if not np.all(err <= tol):
        i = int(np.argmax(err - tol))
        fails.append("%s: element %d is %r, NumPy %r (bound %.3g)" % (what, i, got.reshape(-1)[i], want.reshape(-1)[i],
                                                                      tol.reshape(-1)[i]))


def norm_scale(name, norm, N):
    inverse = name in ("ifft", "irfft", "ihfft", "ifftn", "irfftn", "ifft2", "irfft2")
    if norm == "ortho":
        return 1 / math.sqrt(N)
    return (1 / N if inverse else 1.0) if norm == "backward" else (1.0 if inverse else 1 / N)


def rand(rng, shape, dt):
    if dt in ("complex64", "complex128"):
        return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dt)
    if dt in ("int32", "int8"):
        return rng.integers(-6, 7, shape).astype(dt)
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.uniform(-1, 1, shape).astype(dt)


def main():
    devs = [("cpu", NdDevice(0, 0))]
    if os.environ.get("NDGPU_FFT_CUDA") == "1" and C.nd_cuda_device_count() > 0:
        devs.append(("cuda:0", NdDevice(1, 0)))
    rng = np.random.default_rng(17)
    for dname, dev in devs:
        # the 1-D functions: lengths, norms, dtypes, axes, n (default, crop, pad)
        for name in ONE_D:
            real_in = name in ("rfft", "ihfft")
            c2r = name in ("irfft", "hfft")
            dts = ["float32", "float64", "float16", "int32", "bool"] + ([] if real_in else ["complex64", "complex128"])
            for i, m in enumerate((1, 2, 3, 5, 8, 17, 100, 101, 128, 1009)):
                for norm in NORMS:
                    dt = dts[(i + len(norm)) % len(dts)]
                    shape, axis = ((3, m, 2), 1) if m <= 128 else ((m,), -1)
                    x = rand(rng, shape, dt)
                    for n in ([None, m + 3] if not (c2r and m == 1) else [3]) + ([m - 1] if m > 2 else []):
                        want = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
                        N = n if n is not None else (2 * (m - 1) if c2r else m)
                        a, o = put(x, dev), c_void_p()
                        check(ONE_D[name](ctypes.byref(o), a, -1 if n is None else n, axis, NORMS[norm]),
                              "nd_%s" % name)
                        C.nd_release(a)
                        compare("%s %s %s%s axis %d n %s %s on %s" % (name, dt, dt, shape, axis, n, norm, dname),
                                get(o), want, x, N, norm_scale(name, norm, N))
        # the n-D functions: default axes, explicit/negative/repeated axes, s with crop/pad/-1
        cases = [(None, None), ((0, 2), None), ((-1, 0), (6, 4)), ((1, 2), (-1, 9)), ((2, 0, 2), None)]
        for name in list(N_D) + list(TWO_D):
            two = name.endswith("2")
            for axes, s in cases:
                if two and axes is not None and len(axes) != 2:
                    continue
                for norm in NORMS:
                    real_in = name.startswith("rfft")
                    x = rand(rng, (4, 5, 6), "float32" if real_in else ("complex128" if norm == "ortho" else "complex64"))
                    if axes is not None and len(axes) > len(set(axes)) and name.startswith("irfft"):
                        continue
                    ax = [a % 3 for a in axes] if axes is not None else ([1, 2] if two else [0, 1, 2])
                    if s is not None and any(v == -1 for v in s):
                        sn = list(s)  # NumPy 2: -1 takes the input's extent
                    else:
                        sn = s
                    kw = {"axes": axes} if axes is not None else {}
                    want = getattr(np.fft, name)(x, s=sn, norm=norm, **kw)
                    lens = [x.shape[a] if (s is None or s[k] == -1) else s[k] for k, a in enumerate(ax)]
                    if s is None and name.startswith("irfft"):
                        lens[-1] = 2 * (x.shape[ax[-1]] - 1)
                    N = math.prod(lens)
                    a, o = put(x, dev), c_void_p()
                    sp = (c_int64 * len(s))(*s) if s is not None else None
                    ap = (c_int * len(axes))(*axes) if axes is not None else None
                    if two:
                        check(TWO_D[name](ctypes.byref(o), a, sp, ap, NORMS[norm]), "nd_" + name)
                    else:
                        na = len(axes) if axes is not None else (len(s) if s is not None else -1)
                        check(N_D[name](ctypes.byref(o), a, na, sp, ap, NORMS[norm]), "nd_" + name)
                    C.nd_release(a)
                    compare("%s axes %s s %s %s on %s" % (name, axes, s, norm, dname), get(o), want, x, N,
                            math.prod(norm_scale(name, norm, L) for L in lens))
        # fftfreq, rfftfreq: exact
        for n in (1, 2, 5, 8, 9):
            for d in (1.0, 0.1, -2.5):
                for name in FREQ:
                    o = c_void_p()
                    check(FREQ[name](ctypes.byref(o), n, d, DT.index("float64"), dev), "nd_" + name)
                    got, want = get(o), getattr(np.fft, name)(n, d)
                    count[0] += 1
                    if got.dtype != want.dtype or not np.array_equal(got, want):
                        fails.append("%s(%d, %g) on %s: %r, NumPy %r" % (name, n, d, dname, got, want))
        # fftshift, ifftshift: exact
        for shape in ((5,), (6,), (3, 4), (2, 5, 3)):
            x = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
            for name in SHIFT:
                for axes in (None, (0,), (-1,), (0, -1)):
                    if axes is not None and max(a % len(shape) for a in axes) >= len(shape):
                        continue
                    a, o = put(x, dev), c_void_p()
                    ap = (c_int * len(axes))(*axes) if axes is not None else None
                    check(SHIFT[name](ctypes.byref(o), a, -1 if axes is None else len(axes), ap), "nd_" + name)
                    C.nd_release(a)
                    got, want = get(o), getattr(np.fft, name)(x, axes=axes)
                    count[0] += 1
                    if not np.array_equal(got, want):
                        fails.append("%s %s axes %s on %s" % (name, shape, axes, dname))
    for f in fails[:20]:
        print("python-fft-test: MISMATCH " + f)
    if fails:
        print("python-fft-test: FAILED (%d of %d comparisons)" % (len(fails), count[0]))
        return 1
    print("python-fft-test: PASSED (%d comparisons with numpy.fft %s on %s)" % (count[0], np.__version__,
                                                                                ", ".join(d for d, _ in devs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
