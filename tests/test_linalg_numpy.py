#!/usr/bin/env python3
"""numpy.linalg's decompositions against NumPy itself: solve,
inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, eig,
eigvals, lstsq, pinv, matrix_rank and cond through ctypes on libndgpu.so,
on the CPU (and on cuda:0 with NDGPU_LA_CUDA=1 when the library has a
usable GPU, e.g. the emulated one), with NumPy 2's answers on the same
random inputs as the reference.

What is compared is what does not depend on the factorisation's free
choices: values that are unique (solve, inv, det, slogdet, cholesky, the
singular values, eigh's eigenvalues, pinv, lstsq's x / residuals / rank / s
for full-rank problems, matrix_rank, cond), reconstructions and
orthonormality for the factors that are unique only up to phases (Q R = A,
U S Vh = A, A V = V diag(w)), |diag R| against NumPy's, eig's eigenvalues as
sets (nearest match); never raw eigenvector signs. dtypes: float32,
float64, complex64, complex128 (NumPy's result dtypes), int32 (float64, as
NumPy) and float16 (float32: NumPy refuses float16, libndgpu follows CuPy).
Tolerances: C * eps(dtype) * n (times the condition number for quantities
that are not backward stable). Errors: a singular / non-positive-definite
matrix fails with ND_ERR_INVALID where NumPy raises LinAlgError.

    NDGPU_LIBRARY=build/libndgpu.so python3 tests/test_linalg_numpy.py

The C functions are called through the package's loader (C.nd_linalg_*,
declared in python/ndgpu/_lib.py; tests/numpy_compare.py). Prints SKIPPED
and exits 0 without NumPy 2; exits 1 on a mismatch.
(make python-linalg-test, part of make test through mk/linalg.mk.)
"""
import ctypes
import os
import sys
from ctypes import c_int64, c_void_p

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_compare import gate, C, NdDevice, NdNormOrd as Ord, to_nd, from_nd  # noqa: E402

np = gate("python-linalg-test")

ST = {C.nd_status_name(i).decode(): i for i in range(16) if C.nd_status_name(i)}
ORD_KIND = {None: (0, 0.0), "fro": (2, 0.0), "nuc": (3, 0.0)}

FAILS = []
COUNT = [0]


class NdError(Exception):
    def __init__(self, st):
        super().__init__("%s: %s" % (C.nd_status_name(st).decode(), C.nd_last_error().decode()))
        self.st = st


def call(name, nout, *args):
    """nd_linalg_<name>(&o1, ..., &on, *args) -> the n results as NumPy arrays."""
    outs = [c_void_p() for _ in range(nout)]
    st = getattr(C, "nd_linalg_" + name)(*[ctypes.byref(o) for o in outs], *args)
    if st != 0:
        raise NdError(st)
    return [from_nd(o) for o in outs]


def check(ok, what):
    COUNT[0] += 1
    if not ok:
        FAILS.append(what)


def eps_of(dt):
    return float(np.finfo(np.float32 if dt in ("float16", "float32", "complex64") else np.float64).eps)


def res_dtype(dt):
    return {"float16": "float32", "int32": "float64"}.get(dt, dt)


def real_of(dt):
    return {"complex64": "float32", "complex128": "float64"}.get(res_dtype(dt), res_dtype(dt))


def close(got, want, tol, what):
    got = np.asarray(got, np.complex128)
    want = np.asarray(want, np.complex128)
    if got.shape != want.shape:
        check(False, "%s: shape %s, NumPy %s" % (what, got.shape, want.shape))
        return
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) / scale if want.size else 0.0
    check(err <= tol, "%s: max rel err %.3g > %.3g" % (what, err, tol))


def rand(rng, dt, shape, kind="rand"):
    cpx = dt.startswith("complex")
    x = rng.uniform(-1, 1, shape) + (1j * rng.uniform(-1, 1, shape) if cpx else 0)
    if kind == "well" and len(shape) >= 2:
        x = x + 2 * shape[-1] * np.eye(shape[-1])
    if kind == "hpd":
        x = x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])
    if kind == "herm":
        x = x + np.conj(np.swapaxes(x, -1, -2))
    if dt == "int32":
        x = np.round(4 * x.real)
        if kind in ("well", "hpd"):
            x = x + 8 * shape[-1] * np.eye(shape[-1])
    return x.astype(dt)


def ref(x):
    """What NumPy is given: x itself, or float32 for float16 (NumPy refuses float16)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def run(dev, dname):
    rng = np.random.default_rng(1234)
    for dt in ["float32", "float64", "complex64", "complex128", "int32", "float16"]:
        e = eps_of(dt)
        tag = "%s %s" % (dname, dt)
        # solve / inv / det / slogdet on a broadcast batch
        a = rand(rng, dt, (2, 1, 5, 5), "well")
        b = rand(rng, dt, (3, 5, 2))
        a_nd, b_nd = to_nd(a, dev), to_nd(b, dev)
        cnd = float(np.max(np.linalg.cond(ref(a).astype(np.complex128))))
        (x,) = call("solve", 1, a_nd, b_nd)
        check(str(x.dtype) == res_dtype(dt), "%s solve dtype %s" % (tag, x.dtype))
        close(x, np.linalg.solve(ref(a), ref(b)), 50 * 5 * e * cnd, tag + " solve")
        bv = rand(rng, dt, (5,))
        bv_nd = to_nd(bv, dev)
        (x,) = call("solve", 1, a_nd, bv_nd)
        close(x, np.linalg.solve(ref(a), ref(bv)), 50 * 5 * e * cnd, tag + " solve 1-D b")
        C.nd_release(bv_nd)
        (x,) = call("inv", 1, a_nd)
        close(x, np.linalg.inv(ref(a)), 50 * 5 * e * cnd, tag + " inv")
        g = rand(rng, dt, (4, 6, 6))
        g_nd = to_nd(g, dev)
        (d,) = call("det", 1, g_nd)
        dn = np.linalg.det(ref(g))
        gc = float(np.max(np.linalg.cond(ref(g).astype(np.complex128))))
        check(str(d.dtype) == res_dtype(dt), "%s det dtype %s" % (tag, d.dtype))
        check(np.all(np.abs(d - dn) <= 50 * 6 * e * gc * np.abs(dn)), "%s det %s vs %s" % (tag, d, dn))
        sgn, lad = call("slogdet", 2, g_nd)
        sn, ln = np.linalg.slogdet(ref(g))
        check(str(lad.dtype) == real_of(dt), "%s slogdet dtype %s" % (tag, lad.dtype))
        close(sgn, sn, 50 * 6 * e * gc, tag + " slogdet sign")
        close(lad, ln, 50 * 6 * e * gc, tag + " slogdet logabsdet")
        C.nd_release(a_nd), C.nd_release(b_nd)
        # cholesky
        h = rand(rng, dt, (2, 5, 5), "hpd")
        h_nd = to_nd(h, dev)
        for up in (False, True):
            (l,) = call("cholesky", 1, h_nd, up)
            close(l, np.linalg.cholesky(ref(h), upper=up), 50 * 5 * e, "%s cholesky upper=%s" % (tag, up))
        # eigh / eigvalsh (of a Hermitian, indefinite matrix)
        s = rand(rng, dt, (2, 5, 5), "herm")
        s_nd = to_nd(s, dev)
        for uplo in (b"L", b"U"):
            w, v = call("eigh", 2, s_nd, uplo)
            wn = np.linalg.eigvalsh(ref(s), UPLO=uplo.decode())
            sc = float(np.max(np.abs(wn)))
            close(w / sc, wn / sc, 50 * 5 * e, "%s eigh w %s" % (tag, uplo))
            (w2,) = call("eigvalsh", 1, s_nd, uplo)
            close(w2 / sc, wn / sc, 50 * 5 * e, "%s eigvalsh %s" % (tag, uplo))
            close(ref(s) @ v / sc, v * w[..., None, :] / sc, 50 * 5 * e, "%s eigh A V = V w" % tag)
            close(np.conj(np.swapaxes(v, -1, -2)) @ v, np.broadcast_to(np.eye(5), v.shape), 50 * 5 * e,
                  "%s eigh V^H V" % tag)
        # eig / eigvals: eigenvalue sets, A V = V w
        w, v = call("eig", 2, g_nd)
        (w2,) = call("eigvals", 1, g_nd)
        wn = np.linalg.eigvals(ref(g))
        check(w.dtype.kind == "c", "%s eig dtype %s" % (tag, w.dtype))
        for i in range(g.shape[0]):
            dist = max(float(np.min(np.abs(w[i] - z))) for z in wn[i])
            dist2 = max(float(np.min(np.abs(w2[i] - z))) for z in wn[i])
            check(max(dist, dist2) <= 1e3 * 6 * e * max(1.0, float(np.max(np.abs(wn[i])))),
                  "%s eig values batch %d: %.3g" % (tag, i, max(dist, dist2)))
        close(ref(g) @ v, v * w[..., None, :], 200 * 6 * e, tag + " eig A V = V w")
        C.nd_release(h_nd), C.nd_release(s_nd)
        # qr, svd, svdvals, pinv, matrix_rank, lstsq on non-square shapes
        for m, n in ((7, 4), (4, 7), (5, 5)):
            r_ = rand(rng, dt, (2, m, n))
            r_nd = to_nd(r_, dev)
            k = min(m, n)
            for mode, mname in ((0, "reduced"), (1, "complete"), (2, "r")):
                if mode == 2:
                    out = c_void_p()
                    st = C.nd_linalg_qr(None, ctypes.byref(out), r_nd, 2)
                    assert st == 0, C.nd_last_error()
                    rr = from_nd(out)
                    rn = np.linalg.qr(ref(r_), mode="r")
                    check(rr.shape == rn.shape, "%s qr r shape %s vs %s" % (tag, rr.shape, rn.shape))
                    close(np.abs(np.diagonal(rr, axis1=-2, axis2=-1)), np.abs(np.diagonal(rn, axis1=-2, axis2=-1)),
                          50 * m * e, "%s qr r |diag R|" % tag)
                    continue
                q, rr = call("qr", 2, r_nd, mode)
                qn, rn = np.linalg.qr(ref(r_), mode=mname)
                check(q.shape == qn.shape and rr.shape == rn.shape,
                      "%s qr %s shapes %s %s vs %s %s" % (tag, mname, q.shape, rr.shape, qn.shape, rn.shape))
                close(q @ rr, ref(r_), 50 * m * e, "%s qr %s Q R = A" % (tag, mname))
                close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.broadcast_to(np.eye(q.shape[-1]), (2,) + (q.shape[-1],) * 2),
                      50 * m * e, "%s qr %s Q^H Q" % (tag, mname))
                close(np.triu(rr), rr, 0, "%s qr %s R upper" % (tag, mname))
            for full in (False, True):
                u, sv, vh = call("svd", 3, r_nd, full)
                un, sn, vn = np.linalg.svd(ref(r_), full_matrices=full)
                check(u.shape == un.shape and sv.shape == sn.shape and vh.shape == vn.shape,
                      "%s svd shapes" % tag)
                check(str(sv.dtype) == real_of(dt), "%s svd s dtype %s" % (tag, sv.dtype))
                close(sv, sn, 50 * m * e, "%s svd s" % tag)
                close((u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :], ref(r_), 50 * m * e,
                      "%s svd U S Vh = A" % tag)
            (sv2,) = call("svdvals", 1, r_nd)
            close(sv2, np.linalg.svd(ref(r_), compute_uv=False), 50 * m * e, tag + " svdvals")
            (p,) = call("pinv", 1, r_nd, -1.0, False)
            pc = float(np.max(np.linalg.cond(ref(r_).astype(np.complex128))))
            close(p, np.linalg.pinv(ref(r_)), 50 * m * e * pc, "%s pinv %dx%d" % (tag, m, n))
            (rk,) = call("matrix_rank", 1, r_nd, -1.0, False)
            check(np.array_equal(rk, np.linalg.matrix_rank(ref(r_))), "%s matrix_rank %s" % (tag, rk))
            C.nd_release(r_nd)
            # lstsq (2-D a): full rank, both 1-D and 2-D b
            a2 = rand(rng, dt, (m, n))
            a2_nd = to_nd(a2, dev)
            for bshape in ((m,), (m, 3)):
                b2 = rand(rng, dt, bshape)
                b2_nd = to_nd(b2, dev)
                out = [c_void_p() for _ in range(3)]
                rank = c_int64(-1)
                st = C.nd_linalg_lstsq(ctypes.byref(out[0]), ctypes.byref(out[1]), ctypes.byref(rank),
                                         ctypes.byref(out[2]), a2_nd, b2_nd, -1.0)
                if st != 0:
                    check(False, "%s lstsq: %s" % (tag, C.nd_last_error().decode()))
                    continue
                x, res, sv = (from_nd(o) for o in out)
                xn, resn, rankn, svn = np.linalg.lstsq(ref(a2), ref(b2))
                ac = float(np.linalg.cond(ref(a2).astype(np.complex128)))
                close(x, xn, 50 * m * e * ac * ac, "%s lstsq x %dx%d b%s" % (tag, m, n, bshape))
                check(res.shape == resn.shape, "%s lstsq residuals shape %s vs %s" % (tag, res.shape, resn.shape))
                if res.shape == resn.shape:
                    close(res, resn, 50 * m * e * ac, "%s lstsq residuals" % tag)
                check(rank.value == rankn, "%s lstsq rank %d vs %d" % (tag, rank.value, rankn))
                close(sv, svn, 50 * m * e, "%s lstsq s" % tag)
                C.nd_release(b2_nd)
            C.nd_release(a2_nd)
        # cond, every ord; matrix_rank of rank-deficient stacks, tol, hermitian; hermitian pinv
        c_nd = to_nd(g, dev)
        for o in (None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"):
            kind, pv = ORD_KIND[o] if o is None or isinstance(o, str) else (1, float(o))
            (c,) = call("cond", 1, c_nd, Ord(kind, pv))
            cn = np.linalg.cond(ref(g), o)
            check(str(c.dtype) == real_of(dt), "%s cond dtype %s" % (tag, c.dtype))
            close(c / cn, np.ones_like(cn), 1e3 * 6 * e * gc, "%s cond %s" % (tag, o))
        C.nd_release(c_nd), C.nd_release(g_nd)
        lo = rand(rng, dt, (3, 6, 2)) if dt != "int32" else rand(rng, dt, (3, 6, 2))
        lr = (lo @ np.swapaxes(lo, -1, -2)).astype(dt)  # rank <= 2
        lr_nd = to_nd(lr, dev)
        for tol in (-1.0, 0.5):
            (rk,) = call("matrix_rank", 1, lr_nd, tol, False)
            rn = np.linalg.matrix_rank(ref(lr), tol=None if tol < 0 else tol)
            check(np.array_equal(rk, rn), "%s matrix_rank tol=%s: %s vs %s" % (tag, tol, rk, rn))
        C.nd_release(lr_nd)
        hm = rand(rng, dt, (2, 5, 5), "herm")
        hm_nd = to_nd(hm, dev)
        (p,) = call("pinv", 1, hm_nd, -1.0, True)
        hc = float(np.max(np.linalg.cond(ref(hm).astype(np.complex128))))
        close(p, np.linalg.pinv(ref(hm), hermitian=True), 50 * 5 * e * hc, tag + " pinv hermitian")
        (rk,) = call("matrix_rank", 1, hm_nd, -1.0, True)
        check(np.array_equal(rk, np.linalg.matrix_rank(ref(hm), hermitian=True)), tag + " matrix_rank hermitian")
        C.nd_release(hm_nd)
    # errors where NumPy raises LinAlgError
    sing = np.array([[[2.0, 0], [0, 1]], [[1.0, 2], [2, 4]]])
    s_nd = to_nd(sing, dev)
    for name, nout, args in (("inv", 1, ()), ("solve", 1, (to_nd(np.ones(2), dev),)), ("cholesky", 1, (False,))):
        try:
            call(name, nout, s_nd, *args)
            check(False, "%s %s of a singular stack succeeded" % (dname, name))
        except NdError as err:
            check(err.st == ST["ND_ERR_INVALID"] and "(batch 1)" in str(err), "%s %s: %s" % (dname, name, err))
        try:
            getattr(np.linalg, name)(sing, *[np.ones(2)] if name == "solve" else [])
            check(False, "NumPy %s did not raise" % name)
        except np.linalg.LinAlgError:
            pass
    (c,) = call("cond", 1, s_nd, Ord(1, 1.0))
    close(c[:1], np.linalg.cond(sing, 1)[:1], 1e-12, dname + " cond p=1")
    check(np.isinf(c[1]) and np.isinf(np.linalg.cond(sing, 1)[1]), "%s cond singular: %s" % (dname, c))
    C.nd_release(s_nd)


def main():
    devs = [(NdDevice(0, 0), "cpu")]
    if os.environ.get("NDGPU_LA_CUDA") == "1" and C.nd_cuda_device_count() > 0:
        devs.append((NdDevice(1, 0), "cuda:0"))
    for dev, name in devs:
        run(dev, name)
    for f in FAILS[:60]:
        print("python-linalg-test: MISMATCH " + f)
    print("python-linalg-test: %d checks on %s, %d mismatches" % (COUNT[0], ", ".join(n for _, n in devs), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
