#!/usr/bin/env python3
"""bench_worker.py - the NumPy / CuPy side of benchmarks/compare.py.

    python3 benchmarks/bench_worker.py --lib numpy|cupy --cases CASES.json --result OUT.jsonl --min-time S

CASES.json is a list of libndgpu measurement records (as the bench_*
binaries write them with --json). For each, the worker rebuilds the same
inputs bit for bit (the counter-based generator of bench_common.c), runs the
NumPy/CuPy equivalent of the record's "call" once, checksums its output,
then times it with the same method as bench_measure (warm-up, calibrated
calls per sample, samples until min-time and at least 3; median/min/max).
OUT.jsonl: a first line describing the library (version, OpenBLAS core and
threads read through ctypes, thread env variables; for CuPy the device, CUDA
runtime and compute types), then one line per case
{key, status, median_s, min_s, max_s, calls, samples, checksum, note}.

CuPy: the inputs are generated on the device (the same uint64 arithmetic,
bit for bit) and the output checksums are computed there, so the 2.56e8 and
8192^2 cases cost milliseconds of setup, not seconds. Timing is the C
side's: wall time of k calls followed by a device synchronize, per sample.
float32 matmul runs with CuPy's compute type set per case through
cupy._core._routines_linalg.set_compute_type(float32, ...):
COMPUTE_TYPE_TF32 for records with call.tf32 (the TF32 case; what the
CUPY_TF32=1 environment variable selects at import), COMPUTE_TYPE_DEFAULT
(exact float32) otherwise, restored after the case. bfloat16 needs a CuPy
that accepts ml_dtypes.bfloat16 arrays; otherwise the case says why.

    python3 benchmarks/bench_worker.py --selftest

checks the generator against a pure-Python splitmix64, the float16 /
bfloat16 rounding, and every call kind on small NumPy inputs (no GPU
needed).
"""
import argparse
import json
import os
import platform
import sys
import time

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


class Unsupported(Exception):
    pass


def _u01(np, seed, start, count):
    """bench_u01(seed, i) for i in [start, start + count), as float64."""
    # in place: the chunk's temporaries are most of the input generation's time
    z = np.arange(start, start + count, dtype=np.uint64)
    t = np.empty_like(z)
    z += np.uint64(seed + 1)
    z *= np.uint64(GOLDEN)
    for shift, mul in ((30, MIX1), (27, MIX2), (31, None)):
        np.right_shift(z, np.uint64(shift), out=t)
        z ^= t
        if mul is not None:
            z *= np.uint64(mul)
    z >>= np.uint64(11)
    u = z.astype(np.float64)
    u *= 2.0 ** -53
    return u


def round_sig(xp, v, bits):
    """v (float64) rounded to `bits` significant bits, nearest even: the
    value of a conversion to float16 (11) / bfloat16 (8) in their normal
    range, exactly as bench_round_half/bf16 in bench_common.c. Done in
    float64 so that no double rounding (float64 -> float32 -> 16 bit) can
    differ from the C side."""
    m, e = xp.frexp(v)
    return xp.ldexp(xp.rint(xp.ldexp(m, bits)), e - bits)


def bfloat16_dtype():
    """NumPy's bfloat16 (ml_dtypes) or None."""
    try:
        import ml_dtypes
        return ml_dtypes.bfloat16
    except ImportError:
        return None


def make_base(np, spec, xp=None):
    """The base array of an input spec, exactly as the C side generates it
    (value = lo + (hi - lo) * u, rounded to the dtype). Generated with xp
    (NumPy on the host, or CuPy on the device) in chunks."""
    xp = xp or np
    shape = tuple(spec["shape"])
    n = 1
    for s in shape:
        n *= s
    dt = spec["dtype"]
    if dt == "bfloat16":
        bf = bfloat16_dtype()
        if bf is None:
            raise Unsupported("bfloat16 needs the ml_dtypes package (pip install ml_dtypes)")
        if xp is not np:
            host = make_base(np, spec)  # round on the host, then try the device
            try:
                return xp.asarray(host)
            except Exception as e:
                raise Unsupported("CuPy %s has no bfloat16 arrays (%s: %s)"
                                  % (getattr(xp, "__version__", "?"), type(e).__name__, str(e)[:80]))
        store = bf
    else:
        store = np.bool_ if dt == "bool" else dt
    out = xp.empty(n, dtype=store)
    chunk = 1 << 22 if xp is np else 1 << 25
    lo, hi = spec["lo"], spec["hi"]
    for start in range(0, n, chunk):
        cnt = min(chunk, n - start)
        u = _u01(xp, spec["seed"], start, cnt)
        if dt == "bool":
            out[start:start + cnt] = u < 0.5
        else:
            v = lo + (hi - lo) * u
            if dt in ("int32", "int64"):
                v = xp.floor(v)
            elif dt == "float16":
                v = round_sig(xp, v, 11)
            elif dt == "bfloat16":
                v = round_sig(xp, v, 8)
            out[start:start + cnt] = v.astype(store)
    return out.reshape(shape)


def apply_view(a, view):
    if view == "T":
        return a.T
    if view == "step2":
        return a[..., ::2]
    return a


class InputCache:
    """Base arrays by spec, on the device for CuPy (generated there) unless
    on_device=False (host<->device copies start from a host array). When the
    cache would exceed its limit it is emptied (and CuPy's pool freed)."""

    def __init__(self, np, xp, limit_bytes=None):
        self.np, self.xp = np, xp
        self.limit = limit_bytes or ((4 << 30) if xp is not np else (3 << 30))
        self.d, self.bytes = {}, 0

    def clear(self):
        self.d.clear()
        self.bytes = 0
        if self.xp is not self.np:
            self.xp.get_default_memory_pool().free_all_blocks()

    def get(self, spec, on_device=True):
        key = json.dumps([spec["dtype"], spec["shape"], spec["seed"], spec["lo"], spec["hi"], on_device])
        a = self.d.get(key)
        if a is None:
            nbytes = 1
            for s in spec["shape"]:
                nbytes *= s
            nbytes *= 8
            if self.bytes + nbytes > self.limit:
                self.clear()
            gen = self.xp if (on_device and self.xp is not self.np) else self.np
            a = make_base(self.np, spec, gen)
            self.d[key] = a
            self.bytes += a.nbytes
        return apply_view(a, spec.get("view", "none"))


def cupy_compute_type(xp, tf32):
    """Set CuPy's float32 GEMM compute type (TF32 or the exact default);
    returns (restore function, note)."""
    try:
        from cupy._core import _routines_linalg as lin
    except ImportError as e:
        if tf32:
            raise Unsupported("cannot set CuPy's compute type (%s)" % e)
        return (lambda: None), ""
    want = getattr(lin, "COMPUTE_TYPE_TF32", 7) if tf32 else getattr(lin, "COMPUTE_TYPE_DEFAULT", 1)
    old = lin.get_compute_type(xp.float32)
    lin.set_compute_type(xp.float32, want)
    got = lin.get_compute_type(xp.float32)
    if got != want:
        lin.set_compute_type(xp.float32, old)
        raise Unsupported("CuPy refused compute type %s (has %s)" % (lin.compute_type_to_str(want),
                                                                      lin.compute_type_to_str(got)))
    return (lambda: lin.set_compute_type(xp.float32, old)), "CuPy " + str(lin.compute_type_to_str(want))


def sparse_matrix(np, call):
    """bench_sparse.c's matrix as scipy COO triplets (row, col, value, n):
    the 5-point Laplacian of a size x size grid, or the power-law matrix
    (row i has min(cap, floor(1 / (1 - u(seed, i)))) entries at columns
    floor(n u(seed + 1, p)), values 2 u(seed + 2, p) - 1), bit for bit."""
    size = int(call["size"])
    if call["matrix"] == "laplace2d":
        m = size
        n = m * m
        p = np.arange(n, dtype=np.int64)
        i, j = p // m, p % m
        parts = [(i > 0, -m, -1.0), (j > 0, -1, -1.0), (np.ones(n, bool), 0, 4.0), (j + 1 < m, 1, -1.0),
                 (i + 1 < m, m, -1.0)]
        # the C loop's order: row by row, the five neighbours in this order
        sel = np.stack([k for k, _, _ in parts], axis=1)
        cols = p[:, None] + np.array([d for _, d, _ in parts])[None, :]
        vals = np.broadcast_to(np.array([v for _, _, v in parts]), sel.shape)
        rows = np.broadcast_to(p[:, None], sel.shape)
        return rows[sel], cols[sel], vals[sel], n
    n, seed, cap = size, int(call["seed"]), int(call["cap"])
    deg = np.floor(1.0 / (1.0 - _u01(np, seed, 0, n)))
    deg = np.where(deg > cap, cap, deg).astype(np.int64)
    nnz = int(deg.sum())
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    cols = np.floor(float(n) * _u01(np, seed + 1, 0, nnz)).astype(np.int64)
    vals = 2 * _u01(np, seed + 2, 0, nnz) - 1
    return rows, cols, vals, n


def sparse_case(call, np, xp, ins):
    """The scipy.sparse twin of a bench_sparse.c case."""
    if xp is not np:
        raise Unsupported("bench_sparse runs on the CPU only (no CUDA sparse kernels yet)")
    import scipy
    import scipy.sparse as sp
    note = "scipy %s" % scipy.__version__
    r, c, v, n = sparse_matrix(np, call)
    fn = call["fn"]
    if fn == "sp_coo_tocsr":
        coo = sp.coo_matrix((v, (r, c)), shape=(n, n))
        res = [None]

        def run():
            res[0] = coo.tocsr()
        return run, (lambda: res[0].data), note + ", coo_matrix.tocsr() (sums duplicates, sorted)"
    a = sp.coo_matrix((v, (r, c)), shape=(n, n)).tocsr()
    res = [None]
    if fn in ("sp_spmv", "sp_spmm16"):
        x = ins[0]

        def run():
            res[0] = a @ x
        return run, (lambda: res[0]), note + ", csr @ ndarray (allocates)"
    if fn == "sp_spgemm":
        def run():
            res[0] = a @ a

        def result():
            res[0].sort_indices()
            return res[0].data
        return run, result, note + ", csr @ csr (the checksum after sort_indices, untimed)"
    if fn == "sp_todense":
        def run():
            res[0] = a.toarray()
        return run, (lambda: res[0]), note + ", toarray()"
    if fn == "sp_fromdense":
        d = a.toarray()

        def run():
            res[0] = sp.csr_matrix(d)
        return run, (lambda: res[0].data), note + ", csr_matrix(ndarray)"
    raise Unsupported("unknown sparse case %s" % fn)


def build_case(rec, np, xp, cache, cleanup=None):
    """Returns (timed_fn, result_fn, note). result_fn() gives the array to
    checksum after the timed calls (or None). Functions appended to
    cleanup undo per-case settings after the case (CuPy's compute type)."""
    cleanup = cleanup if cleanup is not None else []
    call = rec.get("call") or {}
    fn = call.get("fn")
    if fn is None:
        raise Unsupported("no NumPy equivalent (ceiling)")
    if fn in ("h2d", "d2h"):
        if xp is np:
            raise Unsupported("host<->device copy: CuPy only")
        h = cache.get(rec["inputs"][0], on_device=False)
        d = xp.asarray(h)
        target = call.get("target")
        res = [None]
        if target in ("pinned_async", "raw_pinned"):  # from/to page-locked host memory, as libndgpu's case
            import cupyx
            hp = cupyx.empty_pinned(h.shape, h.dtype)
            hp[...] = h
            if fn == "h2d":
                return (lambda: d.set(hp)), (lambda: d), "ndarray.set from pinned memory"
            return (lambda: d.get(out=hp)), (lambda: hp), "ndarray.get(out=pinned)"
        if fn == "h2d" and target == "alloc":
            def run():
                res[0] = xp.asarray(h)
            return run, (lambda: res[0]), "cupy.asarray"
        if fn == "h2d":
            return (lambda: d.set(h)), (lambda: d), "ndarray.set"
        if target == "alloc":
            def run():
                res[0] = d.get()
            return run, (lambda: res[0]), "ndarray.get()"
        hout = np.empty_like(h)
        return (lambda: d.get(out=hout)), (lambda: hout), "ndarray.get(out=)"
    if fn == "random":  # bench_random: Generator(Philox) on NumPy, CuPy's default_rng on the GPU
        if xp is np:
            g = np.random.Generator(np.random.Philox(12345))
            note = "Generator(Philox)"
        else:
            g = xp.random.default_rng(12345)
            note = "cupy default_rng"
        f = getattr(g, call["dist"], None)
        if f is None:
            raise Unsupported("%s's Generator has no %s" % (xp.__name__, call["dist"]))
        args, n = call["args"], call["n"]
        return (lambda: f(*args, size=n)), None, note + "." + call["dist"]  # other streams: no checksum
    ins = [cache.get(s) for s in rec["inputs"]]
    if fn.startswith("sp_"):
        return sparse_case(call, np, xp, ins)
    if fn in ("add", "multiply", "exp", "tanh", "log", "sin"):
        f = getattr(xp, fn)
        out = f(*ins)
        if rec.get("layout") == "alloc":  # c = f(a, b) in a loop: a new result every call
            res = [out]

            def run():
                res[0] = f(*ins)
            return run, (lambda: res[0]), "allocates its result"
        return (lambda: f(*ins, out=out)), (lambda: out), ""
    if fn == "special":  # bench_special and bench_special_gamma: scipy.special's ufuncs (cupyx.scipy.special
        # on a GPU) into an existing out=; gelu and silu, which SciPy lacks, as the two ufunc calls a user writes
        try:
            if xp is np:
                import scipy
                import scipy.special as sc
                note = "scipy %s" % scipy.__version__
            else:
                import cupyx.scipy.special as sc
                note = "cupyx.scipy.special"
        except ImportError as e:
            raise Unsupported("no scipy.special: %s" % e)
        name = call["name"]
        if name in ("gelu", "silu"):
            # gelu = a * ndtr(a), silu = a * expit(a): the first call into a temporary
            a = ins[0]
            f = sc.ndtr if name == "gelu" else sc.expit
            out, tmp = xp.empty_like(a), xp.empty_like(a)

            def run():
                f(a, out=tmp)
                xp.multiply(a, tmp, out=out)
            return run, (lambda: out), note + ", %s(a, out=t); multiply(a, t, out=)" % f.__name__
        f = getattr(sc, name)
        out = f(*ins)
        return (lambda: f(*ins, out=out)), (lambda: out), note + ", %s(..., out=)" % name
    if fn == "expr":  # bench_expr: the same line unfused (NumPy/CuPy), or numexpr.evaluate
        code = call["expr"]
        names = dict(zip("abc", ins))
        alloc = rec.get("layout") == "alloc"
        if call.get("twin") == "numexpr":
            if xp is not np:
                raise Unsupported("numexpr evaluates NumPy arrays only")
            try:
                import numexpr as ne
            except ImportError:
                raise Unsupported("numexpr is not installed (pip install numexpr)")
            note = "numexpr %s, %d threads" % (ne.__version__, ne.get_num_threads())
            out = ne.evaluate(code, local_dict=names)
            if alloc:
                res = [out]

                def run():
                    res[0] = ne.evaluate(code, local_dict=names)
                return run, (lambda: res[0]), note + ", allocates"
            return (lambda: ne.evaluate(code, local_dict=names, out=out)), (lambda: out), note + ", out="
        env = {"__builtins__": {}, "tanh": xp.tanh, "exp": xp.exp, "log": xp.log, "sqrt": xp.sqrt}
        f = compile(code, "<expr>", "eval")
        res = [eval(f, env, names)]

        def run():
            res[0] = eval(f, env, names)
        return run, (lambda: res[0]), "the same line, unfused (allocates its temporaries and result)"
    if fn == "where":
        res = [xp.where(*ins)]

        def run():
            res[0] = xp.where(*ins)
        return run, (lambda: res[0]), "np.where allocates"
    if fn == "astype":
        out = ins[0].astype(call["dtype"])
        return (lambda: xp.copyto(out, ins[0], casting="same_kind")), (lambda: out), ""
    if fn in ("sum", "max", "argmax", "mean", "var"):
        f = getattr(xp, fn)
        axis = call.get("axis")
        r = xp.asarray(f(ins[0], axis=axis))
        out = xp.empty(r.shape, r.dtype)
        return (lambda: f(ins[0], axis=axis, out=out)), (lambda: out), ""
    if fn == "matmul":
        if call.get("pairs"):  # complex inputs as (re, im) pairs
            zs = [xp.ascontiguousarray(x).view(xp.complex64 if x.dtype == xp.float32 else xp.complex128)[..., 0]
                  for x in ins]
            out = xp.matmul(*zs)
            return (lambda: xp.matmul(zs[0], zs[1], out=out)), (lambda: out.view(out.real.dtype)), ""
        note = ""
        if xp is not np and ins[0].dtype == xp.float32:
            restore, note = cupy_compute_type(xp, bool(call.get("tf32")))
            cleanup.append(restore)
        elif call.get("tf32"):
            note = "NumPy: exact float32 (no TF32)"
        out = xp.matmul(*ins)
        return (lambda: xp.matmul(ins[0], ins[1], out=out)), (lambda: out), note
    if fn == "copyto":
        out = xp.empty(ins[0].shape, ins[0].dtype)
        return (lambda: xp.copyto(out, ins[0])), (lambda: out), ""
    if fn == "ascontiguousarray":
        res = [None]

        def run():
            res[0] = xp.ascontiguousarray(ins[0])
        return run, (lambda: res[0]), ""
    if fn == "add_alloc":
        res = [None]

        def run():
            res[0] = xp.add(ins[0], ins[1])
        return run, (lambda: res[0]), ""
    if fn == "sum_alloc":
        res = [None]

        def run():
            res[0] = xp.sum(ins[0])
        return run, (lambda: res[0]), ""
    if fn == "empty":
        n, dt = call["n"], call["dtype"]
        return (lambda: xp.empty(n, dtype=dt)), None, ""
    # bench_sort, bench_index, bench_scan, bench_manip
    if fn == "sort":
        res = [None]

        def run():
            res[0] = xp.sort(ins[0], axis=call.get("axis", -1))
        return run, (lambda: res[0]), "np.sort allocates"
    if fn == "argsort":
        res = [None]

        def run():
            res[0] = xp.argsort(ins[0], axis=call.get("axis", -1))
        # checksum of the gathered values: equal keys may come in any order
        return run, (lambda: xp.take_along_axis(ins[0], res[0], axis=call.get("axis", -1))), "np.argsort allocates"
    if fn == "topk":
        k, axis = call["k"], call.get("axis", -1)
        res = [None]

        def run():
            res[0] = xp.argpartition(ins[0], -k, axis=axis)
        # the k largest in descending order (what nd_topk returns)
        return run, (lambda: -xp.sort(-xp.take_along_axis(ins[0], res[0][..., -k:], axis=axis), axis=axis)), \
            "np.argpartition(a, -k, axis)"
    if fn == "take":
        idx = ins[1]
        out = xp.take(ins[0], idx, axis=call.get("axis"))
        return (lambda: xp.take(ins[0], idx, axis=call.get("axis"), out=out)), (lambda: out), ""
    if fn == "mask_select":
        res = [None]

        def run():
            res[0] = ins[0][ins[1]]
        return run, (lambda: res[0]), "a[mask] allocates"
    if fn == "flatnonzero":
        res = [None]

        def run():
            res[0] = xp.flatnonzero(ins[0])
        return run, (lambda: res[0]), ""
    if fn == "cumsum":
        axis = call.get("axis")
        out = xp.cumsum(ins[0], axis=axis)
        return (lambda: xp.cumsum(ins[0], axis=axis, out=out)), (lambda: out), ""
    # bench_mx: the textbook formulas users write in NumPy
    if fn in ("softmax", "log_softmax", "logsumexp", "cross_entropy"):
        axis = call.get("axis", -1)
        x = ins[0]
        res = [None]

        def softmax():
            e = xp.exp(x - x.max(axis, keepdims=True))
            res[0] = e / e.sum(axis, keepdims=True)

        def log_softmax():
            t = x - x.max(axis, keepdims=True)
            res[0] = t - xp.log(xp.exp(t).sum(axis, keepdims=True))

        def logsumexp():
            m = x.max(axis, keepdims=True)
            res[0] = (m + xp.log(xp.exp(x - m).sum(axis, keepdims=True))).squeeze(axis)

        def cross_entropy():
            m = x.max(-1, keepdims=True)
            lse = (m + xp.log(xp.exp(x - m).sum(-1, keepdims=True)))[:, 0]
            res[0] = (lse - xp.take_along_axis(x, ins[1][:, None], -1)[:, 0]).mean()
        f = {"softmax": softmax, "log_softmax": log_softmax, "logsumexp": logsumexp,
             "cross_entropy": cross_entropy}[fn]
        return f, (lambda: res[0]), "exp(x - max) / sum" if fn == "softmax" else ""
    # bench_complex: complex elementwise ops and sum on (re, im) pairs viewed as complex
    if fn == "cpx":
        zs = [xp.ascontiguousarray(x).view(xp.complex64 if x.dtype == xp.float32 else xp.complex128)[..., 0]
              for x in ins]
        op = call["op"]
        if op == "sum":
            res = [None]

            def run():
                res[0] = xp.sum(zs[0])
            return run, (lambda: xp.asarray(res[0]).reshape(1).view(res[0].real.dtype)), ""
        f = {"multiply": xp.multiply, "add": xp.add, "divide": xp.divide, "exp": xp.exp, "sqrt": xp.sqrt,
             "abs": xp.abs}[op]
        out = f(*zs)
        pairs = out.dtype.kind == "c"
        return (lambda: f(*zs, out=out)), (lambda: out.view(out.real.dtype) if pairs else out), ""
    # bench_fft: numpy.fft / cupy.fft; complex inputs come as (re, im) pairs (..., 2)
    if fn in ("fft", "ifft", "rfft", "fft2"):
        x = ins[0]
        if call.get("pairs"):
            x = xp.ascontiguousarray(x).view(xp.complex64 if x.dtype == xp.float32 else xp.complex128)[..., 0]
        f = getattr(xp.fft, fn)
        res = [None]

        def run():
            res[0] = f(x)
        # the checksum runs over the (re, im) pairs in C order, as bench_fft's
        return run, (lambda: res[0].view(res[0].real.dtype)), "np.fft allocates"
    if fn == "einsum":
        subs, opt = call["subscripts"], call.get("optimize", True)
        res = [None]

        def run():
            res[0] = xp.einsum(subs, *ins, optimize=opt) if xp is np else xp.einsum(subs, *ins)
        return run, (lambda: res[0]), "optimize=True" if xp is np else ""
    if fn == "pad":
        res = [None]

        def run():
            res[0] = xp.pad(ins[0], call["pad_width"], mode=call["mode"])
        return run, (lambda: res[0]), ""
    if fn == "roll":
        res = [None]

        def run():
            res[0] = xp.roll(ins[0], call["shift"], axis=call.get("axis"))
        return run, (lambda: res[0]), "np.roll allocates"
    if fn == "copyto_flip":
        out = xp.empty(ins[0].shape, ins[0].dtype)
        axis = call.get("axis")
        return (lambda: xp.copyto(out, xp.flip(ins[0], axis=axis))), (lambda: out), ""
    # bench_linalg: numpy.linalg / cupy.linalg; "prep" makes input 0 well-conditioned with the
    # same float operations as bench_linalg.c (so both sides factor the same matrix bit for bit)
    if fn == "linalg":
        op, how = call["op"], call.get("prep", "none")
        a = ins[0]
        if how != "none":
            n = a.shape[-1]
            eye = xp.eye(n, dtype=a.dtype)
            if how in ("sym", "spd"):
                a = (a + xp.swapaxes(a, -1, -2)) / 2
            if how == "det":
                a = a / n + eye
            elif how in ("diag", "spd"):
                a = a + n * eye  # a weak Python int: float32 stays float32
            a = xp.ascontiguousarray(a)
        la = xp.linalg
        if op == "multi_dot" and not hasattr(la, "multi_dot"):
            raise Unsupported("%s.linalg has no multi_dot" % xp.__name__)
        res = [None]
        calls = {"solve": lambda: la.solve(a, ins[1]), "svd": lambda: la.svd(a, full_matrices=False),
                 "eigh": lambda: la.eigh(a), "inv": lambda: la.inv(a), "det": lambda: la.det(a),
                 "cholesky": lambda: la.cholesky(a), "qr": lambda: la.qr(a), "norm": lambda: la.norm(a),
                 "multi_dot": lambda: la.multi_dot([ins[0], ins[1], ins[2][:, :32], ins[1][:32, :]])}
        f = calls[op]

        def run():
            res[0] = f()

        def result():  # the unique part of the result, as bench_linalg.c checksums it
            r = res[0]
            if op == "svd":
                return r[1]
            if op == "eigh":
                return r[0]
            if op == "qr":
                return xp.abs(r[1])
            if op in ("det", "norm"):
                return xp.asarray(r).reshape(1)
            return r
        return run, result, ""
    raise Unsupported("no NumPy equivalent for %r" % fn)


def measure(fn, sync, min_time):
    """Same method as bench_measure in bench_common.c."""
    pc = time.perf_counter

    def time_k(k):
        t0 = pc()
        for _ in range(k):
            fn()
        sync()
        return pc() - t0

    time_k(1)  # warm-up
    target = min_time / 20
    k = 1
    while True:
        t = time_k(k)
        if t >= target or k >= (1 << 26):
            break
        nk = int(k * target / t * 1.25) + 1 if t > 0 else 10 * k
        k = max(2 * k, min(nk, 10 * k))
    samples, total = [t / k], t
    while (total < min_time or len(samples) < 3) and len(samples) < 4096:
        t = time_k(k)
        samples.append(t / k)
        total += t
    samples.sort()
    ns = len(samples)
    med = samples[ns // 2] if ns % 2 else 0.5 * (samples[ns // 2 - 1] + samples[ns // 2])
    return {"median_s": med, "min_s": samples[0], "max_s": samples[-1], "calls": ns * k, "samples": ns}


def checksum(xp, a):
    """[sum(x), sum(x * (1 + i % 7))] in float64 over x in C order, with xp
    (NumPy, or CuPy on the device) in chunks."""
    a = xp.asarray(a)
    flat = a.reshape(-1)
    s1 = s2 = 0.0
    # chunks of a multiple of 7 elements: every chunk starts at i % 7 == 0,
    # so one weight vector serves them all and the weighted sum is a dot
    chunk = 7 << (19 if xp.__name__ == "numpy" else 22)
    w = _WEIGHTS.get((xp.__name__, chunk))
    if w is None:
        w = _WEIGHTS[(xp.__name__, chunk)] = (xp.arange(chunk, dtype=xp.int64) % 7 + 1).astype(xp.float64)
    for start in range(0, flat.size, chunk):
        x = flat[start:start + chunk].astype(xp.float64)
        s1 += float(x.sum())
        s2 += float(x @ w[:x.size])
    return [s1, s2]


_WEIGHTS = {}


def blas_info(np):
    """NumPy's OpenBLAS: core name, threads, config (via ctypes)."""
    import ctypes
    info = {}
    libs = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if "openblas" in path.lower() and ".so" in path and path not in libs:
                    libs.append(path)
    except OSError:
        pass
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for suffix in ("64_", "", "_64"):
            for pre in ("scipy_openblas", "openblas"):
                try:
                    core = getattr(lib, pre + "_get_corename" + suffix)
                    nth = getattr(lib, pre + "_get_num_threads" + suffix)
                    cfg = getattr(lib, pre + "_get_config" + suffix)
                except AttributeError:
                    continue
                core.restype = cfg.restype = ctypes.c_char_p
                info = {"lib": path, "core": core().decode(), "threads": int(nth()), "config": cfg().decode()}
                return info
    return info


def cupy_meta(xp):
    info = {}
    try:
        dev = xp.cuda.Device()
        props = xp.cuda.runtime.getDeviceProperties(dev.id)
        name = props.get("name", b"")
        info["device"] = name.decode() if isinstance(name, bytes) else str(name)
        info["compute_capability"] = dev.compute_capability
        info["cuda_runtime"] = xp.cuda.runtime.runtimeGetVersion()
        info["cuda_driver"] = xp.cuda.runtime.driverGetVersion()
    except Exception as e:  # informational only
        info["device_error"] = str(e)[:200]
    try:
        from cupy._core import _routines_linalg as lin
        info["float32_compute_type_at_start"] = str(lin.compute_type_to_str(lin.get_compute_type(xp.float32)))
    except Exception as e:
        info["compute_type_error"] = str(e)[:200]
    try:
        from cupy._core import _accelerator
        info["routine_accelerators"] = [str(a) for a in _accelerator.get_routine_accelerators()]
        info["reduction_accelerators"] = [str(a) for a in _accelerator.get_reduction_accelerators()]
    except Exception as e:
        info["accelerators_error"] = str(e)[:200]
    info["CUPY_TF32"] = os.environ.get("CUPY_TF32")
    info["CUPY_ACCELERATORS"] = os.environ.get("CUPY_ACCELERATORS")
    info["bfloat16"] = bfloat16_dtype() is not None
    return info


# What each libndgpu op is on the NumPy/CuPy side (for compare.py --dry-run;
# build_case is what runs). Keys: the op part of the case key.
EQUIVALENTS = {
    "add": "add(a, b, out=)", "multiply": "multiply(a, b, out=)", "exp": "exp(a, out=)", "tanh": "tanh(a, out=)",
    "erf": "scipy.special.erf(a, out=)", "expit": "scipy.special.expit(a, out=)",
    "gelu": "scipy.special.ndtr(a, out=t); multiply(a, t, out=)",
    "silu": "scipy.special.expit(a, out=t); multiply(a, t, out=)",
    "log": "log(a, out=)", "sin": "sin(a, out=)",
    "where": "where(c, a, b) (allocates)", "astype": "copyto(out_f16, a)",
    "sum": "sum(a, axis, out=)", "max": "max(a, axis, out=)", "argmax": "argmax(a, axis, out=)",
    "mean": "mean(a, axis, out=)", "var": "var(a, axis, out=)",
    "matmul": "matmul(a, b, out=)", "copy": "copyto(out, a)", "contiguous": "ascontiguousarray(a)",
    "empty+release": "empty(n)", "h2d": "ndarray.set / cupy.asarray", "d2h": "ndarray.get",
    "softmax": "exp(x - x.max(axis, keepdims=True)) / sum", "log_softmax": "x - m - log(sum(exp(x - m)))",
    "logsumexp": "m + log(sum(exp(x - m)))", "cross_entropy": "mean(logsumexp(x) - take_along_axis(x, y))",
    "fft": "fft.fft(x)", "ifft": "fft.ifft(x)", "rfft": "fft.rfft(x)", "fft2": "fft.fft2(x)",
    "divide": "divide(a, b, out=)", "sqrt": "sqrt(a, out=)", "abs": "abs(a, out=)",
    "solve": "linalg.solve(a, b)", "svd": "linalg.svd(a, full_matrices=False)", "eigh": "linalg.eigh(a)",
    "inv": "linalg.inv(a) (batched)", "det": "linalg.det(a)", "cholesky": "linalg.cholesky(a)",
    "qr": "linalg.qr(a) (reduced)", "norm": "linalg.norm(a) ('fro')", "multi_dot": "linalg.multi_dot(arrays)",
    "sort": "sort(a, axis=-1) (allocates)", "argsort": "argsort(a, axis=-1) (allocates)",
    "expr_fma": "a*b+c (unfused, allocates)", "expr_gelu": "0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))",
    "expr_fma_numexpr": "numexpr.evaluate('a*b+c')", "expr_gelu_numexpr": "numexpr.evaluate(gelu)",
}
# The library's own costs, measured against another libndgpu call in the
# same case (bench_overhead: extra_s, door_cost_s, disk_hit_s): no twin.
OWN_COSTS = ("kernel", "kernel compile", "profiler door (off)")
CEILINGS = ("d2d_copy", "cblas_sgemm", "cblas_dgemm", "cublasGemmEx", "cublasGemmStridedBatchedEx", "triad",
            "stream_copy", "malloc+free", "cudaMalloc+cudaFree")


def describe_key(key, lib="cupy"):
    """(equivalent call or None, why not) for a case key op/dtype/shape/layout/device."""
    op, dtype, shape, layout, dev = key.split("/")
    if op in CEILINGS:
        return None, "ceiling (raw reference, no %s counterpart)" % lib
    if op in OWN_COSTS:
        return None, "the library's own cost (against another libndgpu call in the case; no %s twin)" % lib
    if op not in EQUIVALENTS:
        return None, "NO %s EQUIVALENT for op %r" % (lib, op)
    if lib == "numpy" and op in ("h2d", "d2h"):
        return None, "host<->device copy: CuPy only"
    eq = "%s.%s" % (lib, EQUIVALENTS[op])
    if dtype == "bfloat16":
        eq += " [bfloat16: needs ml_dtypes and a CuPy with bfloat16 arrays, else 'unsupported' with the reason]"
    if layout == "tf32":
        eq += " [CuPy compute type COMPUTE_TYPE_TF32 for float32]" if lib == "cupy" else " [exact float32]"
    return eq, None


def selftest():
    """No GPU needed: the generator, the 16-bit rounding, every call kind."""
    import numpy as np
    fails = []

    def check(cond, what):
        print("selftest: %-70s %s" % (what, "ok" if cond else "FAILED"))
        if not cond:
            fails.append(what)

    # 1. the vectorised generator equals a scalar splitmix64 (bench_u01)
    def u01_ref(seed, i):
        m = (1 << 64) - 1
        z = ((seed + i + 1) * GOLDEN) & m
        z = ((z ^ (z >> 30)) * MIX1) & m
        z = ((z ^ (z >> 27)) * MIX2) & m
        z ^= z >> 31
        return (z >> 11) * 2.0 ** -53
    got = _u01(np, 21, 1000, 5)
    check(all(got[k] == u01_ref(21, 1000 + k) for k in range(5)), "_u01 == scalar splitmix64")
    # 2. float16 / bfloat16 rounding: rint at 11 bits == NumPy's direct float64 -> float16
    v = 0.5 + _u01(np, 5, 0, 1 << 16)
    check(np.array_equal(round_sig(np, v, 11).astype(np.float16), v.astype(np.float16)),
          "round_sig(11) == float64 -> float16 conversion (65536 values)")
    r8 = round_sig(np, v, 8)
    check(np.array_equal(r8.astype(np.float32).astype(np.float64), r8) and
          bool(np.all((r8.astype(np.float32).view(np.uint32) & 0xFFFF) == 0)), "round_sig(8) is bfloat16-exact")
    bf = bfloat16_dtype()
    if bf is not None:
        check(np.array_equal(r8.astype(bf).astype(np.float64), r8), "bfloat16 via ml_dtypes keeps the rounded value")
    # 3. every call kind on small inputs, against a direct computation
    cache = InputCache(np, np)

    def spec(dtype, shape, seed, view="none"):
        return {"dtype": dtype, "shape": list(shape), "view": view, "seed": seed, "lo": 0.5, "hi": 1.5}

    def run(call, inputs, expect):
        rec = {"call": call, "inputs": inputs, "key": "x", "label": "x"}
        cl = []
        fn, result, note = build_case(rec, np, np, cache, cl)
        fn()
        out = result() if result else None
        for c in cl:
            c()
        st = measure(fn, lambda: None, 0.002)
        ok = st["samples"] >= 3 and (expect is None or np.allclose(np.asarray(out, dtype=np.float64), expect,
                                                                   rtol=1e-3))
        check(ok, "%s %s" % (call["fn"], " ".join("%s%s" % (i["dtype"], i["shape"]) for i in inputs)))
        return out
    a32, b32 = spec("float32", (64, 64), 1), spec("float32", (64, 64), 2)
    A, B = make_base(np, a32), make_base(np, b32)
    run({"fn": "add"}, [a32, b32], A + B)
    run({"fn": "add"}, [spec("float32", (64, 128), 1, "step2"), spec("float32", (64, 128), 2, "step2")],
        make_base(np, spec("float32", (64, 128), 1))[:, ::2] + make_base(np, spec("float32", (64, 128), 2))[:, ::2])
    run({"fn": "exp"}, [a32], np.exp(A))
    run({"fn": "where"}, [spec("bool", (64, 64), 3), a32, b32], np.where(make_base(np, spec("bool", (64, 64), 3)), A, B))
    run({"fn": "astype", "dtype": "float16"}, [a32], A.astype(np.float16))
    for ax in (None, 0, 1):
        run({"fn": "sum", "axis": ax}, [a32], A.sum(axis=ax))
    run({"fn": "matmul"}, [a32, b32], A @ B)
    run({"fn": "matmul", "tf32": True}, [a32, b32], A @ B)
    h16 = spec("float16", (64, 64), 21)
    H = make_base(np, h16)
    check(H.dtype == np.float16, "float16 inputs are float16")
    run({"fn": "matmul"}, [h16, spec("float16", (64, 64), 22)], H @ make_base(np, spec("float16", (64, 64), 22)))
    run({"fn": "matmul"}, [spec("float32", (10, 16, 16), 21), spec("float32", (10, 16, 16), 22)], None)
    run({"fn": "copyto"}, [spec("float32", (64, 64), 61, "T")], A.T * 0 + make_base(np, spec("float32", (64, 64), 61)).T)
    run({"fn": "ascontiguousarray"}, [spec("float32", (64, 64), 61, "T")], None)
    run({"fn": "add_alloc"}, [a32, b32], A + B)
    run({"fn": "sum_alloc"}, [a32], A.sum())
    run({"fn": "empty", "n": 100, "dtype": "float32"}, [], None)
    # bench_complex (pairs viewed as complex; outputs checksummed as pairs)
    Z1 = make_base(np, spec("float32", (64, 2), 41)).view(np.complex64)[..., 0]
    Z2 = make_base(np, spec("float32", (64, 2), 42)).view(np.complex64)[..., 0]
    run({"fn": "cpx", "op": "multiply"}, [spec("float32", (64, 2), 41), spec("float32", (64, 2), 42)],
        (Z1 * Z2).view(np.float32))
    run({"fn": "cpx", "op": "abs"}, [spec("float32", (64, 2), 41)], np.abs(Z1))
    run({"fn": "cpx", "op": "sum"}, [spec("float32", (64, 2), 41)], np.asarray(Z1.sum()).reshape(1).view(np.float32))
    # the FFT cases (complex inputs as (re, im) pairs; outputs checksummed as pairs)
    P = make_base(np, spec("float32", (64, 2), 31))
    Z = P.view(np.complex64)[..., 0]
    run({"fn": "fft", "pairs": True}, [spec("float32", (64, 2), 31)], np.fft.fft(Z).view(np.float32))
    run({"fn": "rfft", "pairs": False}, [a32], np.fft.rfft(A).view(np.float32))
    run({"fn": "fft2", "pairs": True}, [spec("float32", (8, 8, 2), 32)],
        np.fft.fft2(make_base(np, spec("float32", (8, 8, 2), 32)).view(np.complex64)[..., 0]).view(np.float32))
    # bench_linalg (prep as bench_linalg.c's)
    L = make_base(np, spec("float64", (8, 8), 101))
    run({"fn": "linalg", "op": "solve", "prep": "diag"}, [spec("float64", (8, 8), 101), spec("float64", (8, 2), 102)],
        np.linalg.solve(L + 8 * np.eye(8), make_base(np, spec("float64", (8, 2), 102))))
    run({"fn": "linalg", "op": "eigh", "prep": "sym"}, [spec("float64", (8, 8), 101)],
        np.linalg.eigvalsh((L + L.T) / 2))
    run({"fn": "linalg", "op": "svd", "prep": "none"}, [spec("float64", (8, 8), 101)], np.linalg.svd(L)[1])
    run({"fn": "linalg", "op": "det", "prep": "det"}, [spec("float64", (8, 8), 101)],
        np.asarray(np.linalg.det(L / 8 + np.eye(8))).reshape(1))
    run({"fn": "linalg", "op": "qr", "prep": "none"}, [spec("float64", (8, 8), 101)], np.abs(np.linalg.qr(L)[1]))
    run({"fn": "linalg", "op": "inv", "prep": "diag"}, [spec("float32", (5, 4, 4), 103)],
        np.linalg.inv(make_base(np, spec("float32", (5, 4, 4), 103)) + 4 * np.eye(4, dtype=np.float32)))
    M0, M1, M2 = (make_base(np, spec("float64", sh, k)) for sh, k in (((40, 64), 1), ((64, 40), 2), ((40, 64), 3)))
    run({"fn": "linalg", "op": "multi_dot"}, [spec("float64", (40, 64), 1), spec("float64", (64, 40), 2),
                                              spec("float64", (40, 64), 3)], M0 @ M1 @ M2[:, :32] @ M1[:32, :])
    try:
        make_base(np, spec("bfloat16", (4, 4), 1))
        check(bf is not None, "bfloat16 input without ml_dtypes raises Unsupported")
    except Unsupported as e:
        check(bf is None, "bfloat16 without ml_dtypes: Unsupported (%s)" % str(e)[:30])
    # 4. checksums: chunked == direct
    x = make_base(np, spec("float32", (3000,), 9))
    cs = checksum(np, x)
    w = np.arange(x.size) % 7 + 1
    check(abs(cs[0] - float(x.astype(np.float64).sum())) < 1e-9 * abs(cs[0]) and
          abs(cs[1] - float((x.astype(np.float64) * w).sum())) < 1e-9 * abs(cs[1]), "checksum")
    # 5. every op of the GPU cases has an equivalent
    for key in ("add/float32/256000000/contig/cuda:0", "sum/float32/16384x16384/axis0/cuda:0",
                "matmul/float32/8192x8192/tf32/cuda:0", "matmul/bfloat16/8192x8192/contig/cuda:0",
                "matmul/float32/1000x16x16/batched/cuda:0", "add/float32/1/out/cuda:0",
                "empty+release/float32/1/alloc/cuda:0", "h2d/float32/16777216/pinned_async/cuda:0"):
        eq, why = describe_key(key)
        check(eq is not None, "CuPy equivalent of %s" % key)
    print("selftest: %d failed" % len(fails))
    return 1 if fails else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", choices=["numpy", "cupy"])
    ap.add_argument("--cases")
    ap.add_argument("--result")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--no-checksum", action="store_true",
                    help="time only (a round after the first, whose checksums are kept)")
    ap.add_argument("--selftest", action="store_true", help="check the worker with NumPy (no GPU needed)")
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest()
    if not (args.lib and args.cases and args.result):
        ap.error("--lib, --cases and --result are required (or --selftest)")
    import numpy as np
    extra = {}
    if args.lib == "cupy":
        import cupy as xp
        sync = lambda: xp.cuda.Device().synchronize()
        version = xp.__version__
        extra = cupy_meta(xp)
    else:
        xp = np
        sync = lambda: None
        version = np.__version__
    with open(args.cases) as f:
        cases = json.load(f)
    # OpenBLAS's own threads spin ~0.1 s after it loads (with import numpy):
    # sleep past it before the first case, as the libndgpu binaries do
    # (bench_common.c), so that both sides are timed in the same state.
    time.sleep(0.2)
    cache = InputCache(np, xp)
    meta = {"type": "worker", "lib": args.lib, "version": version, "numpy_version": np.__version__,
            "python": platform.python_version(), "blas": blas_info(np),
            "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                   "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "CUPY_TF32")},
            "timing": "wall clock of k calls + device synchronize per sample (as bench_measure)"}
    meta.update(extra)
    t_start = time.time()
    with open(args.result, "w") as out:
        out.write(json.dumps(meta) + "\n")
        for i, rec in enumerate(cases):
            sys.stderr.write("[%s] case %d/%d %s (%.1f s)\n" % (args.lib, i + 1, len(cases), rec["label"],
                                                              time.time() - t_start))
            res = {"key": rec["key"]}
            cleanup = []
            try:
                run, result, note = build_case(rec, np, xp, cache, cleanup)
                run()
                sync()
                if result is not None and not args.no_checksum:
                    r = result()
                    mod = np if (xp is np or isinstance(r, np.ndarray)) else xp
                    res["checksum"] = checksum(mod, r)
                res.update(measure(run, sync, args.min_time))
                res["status"], res["note"] = "ok", note
            except Unsupported as e:
                res["status"], res["message"] = "unsupported", str(e)
            except Exception as e:  # a failing case must not stop the others
                res["status"], res["message"] = "error", "%s: %s" % (type(e).__name__, e)
            finally:
                for c in cleanup:
                    try:
                        c()
                    except Exception as e:
                        res.setdefault("message", "cleanup failed: %s" % e)
            out.write(json.dumps(res) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
