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
threads read through ctypes, thread env variables), then one line per case
{key, status, median_s, min_s, max_s, calls, samples, checksum, note}.
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
    i = np.arange(start, start + count, dtype=np.uint64)
    z = (i + np.uint64(seed + 1)) * np.uint64(GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)


def make_base(np, spec):
    """The base array of an input spec, on the host, exactly as the C side
    generates it (value = lo + (hi - lo) * u, rounded to the dtype)."""
    shape = tuple(spec["shape"])
    n = 1
    for s in shape:
        n *= s
    dt = spec["dtype"]
    out = np.empty(n, dtype=np.bool_ if dt == "bool" else dt)
    chunk = 1 << 22
    lo, hi = spec["lo"], spec["hi"]
    for start in range(0, n, chunk):
        cnt = min(chunk, n - start)
        u = _u01(np, spec["seed"], start, cnt)
        if dt == "bool":
            out[start:start + cnt] = u < 0.5
        else:
            v = lo + (hi - lo) * u
            if dt in ("int32", "int64"):
                v = np.floor(v)
            out[start:start + cnt] = v.astype(dt)
    return out.reshape(shape)


def apply_view(a, view):
    if view == "T":
        return a.T
    if view == "step2":
        return a[..., ::2]
    return a


class InputCache:
    def __init__(self, np, xp, limit_bytes=3 << 30):
        self.np, self.xp, self.limit = np, xp, limit_bytes
        self.d, self.bytes = {}, 0

    def get(self, spec, on_device=True):
        key = json.dumps([spec["dtype"], spec["shape"], spec["seed"], spec["lo"], spec["hi"], on_device])
        a = self.d.get(key)
        if a is None:
            a = make_base(self.np, spec)
            if on_device and self.xp is not self.np:
                a = self.xp.asarray(a)
            if self.bytes + a.nbytes > self.limit:
                self.d.clear()
                self.bytes = 0
            self.d[key] = a
            self.bytes += a.nbytes
        return apply_view(a, spec.get("view", "none"))


def build_case(rec, np, xp, cache):
    """Returns (timed_fn, result_fn, note). result_fn() gives the array to
    checksum after the timed calls (or None)."""
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
    ins = [cache.get(s) for s in rec["inputs"]]
    if fn in ("add", "multiply", "exp", "tanh"):
        f = getattr(xp, fn)
        out = f(*ins)
        return (lambda: f(*ins, out=out)), (lambda: out), ""
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
        out = xp.matmul(*ins)
        return (lambda: xp.matmul(ins[0], ins[1], out=out)), (lambda: out), ""
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


def checksum(np, a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    s1 = s2 = 0.0
    chunk = 1 << 22
    for start in range(0, flat.size, chunk):
        x = flat[start:start + chunk].astype(np.float64)
        w = (np.arange(start, start + x.size, dtype=np.int64) % 7 + 1).astype(np.float64)
        s1 += float(x.sum())
        s2 += float((x * w).sum())
    return [s1, s2]


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", choices=["numpy", "cupy"], required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--result", required=True)
    ap.add_argument("--min-time", type=float, default=0.2)
    args = ap.parse_args(argv)
    import numpy as np
    if args.lib == "cupy":
        import cupy as xp
        sync = lambda: xp.cuda.Device().synchronize()
        to_host = xp.asnumpy
        version = xp.__version__
    else:
        xp = np
        sync = lambda: None
        to_host = lambda a: a
        version = np.__version__
    with open(args.cases) as f:
        cases = json.load(f)
    cache = InputCache(np, xp)
    meta = {"type": "worker", "lib": args.lib, "version": version, "numpy_version": np.__version__,
            "python": platform.python_version(), "blas": blas_info(np),
            "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                   "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}}
    with open(args.result, "w") as out:
        out.write(json.dumps(meta) + "\n")
        for i, rec in enumerate(cases):
            sys.stderr.write("[%s] case %d/%d %s\n" % (args.lib, i + 1, len(cases), rec["label"]))
            res = {"key": rec["key"]}
            try:
                run, result, note = build_case(rec, np, xp, cache)
                run()
                sync()
                if result is not None:
                    r = result()
                    res["checksum"] = checksum(np, to_host(r))
                res.update(measure(run, sync, args.min_time))
                res["status"], res["note"] = "ok", note
            except Unsupported as e:
                res["status"], res["message"] = "unsupported", str(e)
            except Exception as e:  # a failing case must not stop the others
                res["status"], res["message"] = "error", "%s: %s" % (type(e).__name__, e)
            out.write(json.dumps(res) + "\n")
            out.flush()
    return 0




if __name__ == "__main__":
    sys.exit(main())
