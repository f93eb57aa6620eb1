#!/usr/bin/env python3
"""Per-call cost of the Python package (python/ndgpu), in one run:

    PYTHONPATH=python NDGPU_LIBRARY=build/libndgpu.so python3 benchmarks/bench_python_overhead.py

On 1-element float32 arrays: x + y, x + 1.0, xp.add(x, y), xp.sum(x), x[0]
through the compiled module ndgpu._core (layout "ext"), through the ctypes
fallback (layout "ctypes": a subprocess with NDGPU_NO_EXT=1), the C
library alone (layout "c": the same library calls and nd_release in a C
loop, ndgpu._core._bench_loop), and NumPy's a + b, a + 1.0, np.add, np.sum,
a[0] in the same process, timed alternately with the "ext" rows. Then x + y
on 10^7 float32 elements the same four ways (the wrapper adds no copies).
Every row is a median over samples of a timed loop (calibrated to ~10 ms a
sample), in microseconds per call; the goal line is the first row against
0.5 us.

compare.py runs it as its "python" group (--benches python): --json PATH
writes libndgpu-bench records (one per row, each with its NumPy twin under
"numpy" and checksums of both results), --list prints the case keys;
--quick, --min-time, --filter, --device, --threads as the C benchmarks.
"""
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIG = 10 * 1000 * 1000
GOAL_S = 0.5e-6

# op -> (statement on x, y (ndgpu), NumPy statement on a, b, _bench_loop kind)
SMALL_OPS = {
    "x + y": ("x + y", "a + b", 0),
    "x + 1.0": ("x + 1.0", "a + 1.0", 1),
    "xp.add(x, y)": ("add(x, y)", "np_add(a, b)", 0),
    "xp.sum(x)": ("xsum(x)", "np_sum(a)", 3),
    "x[0]": ("x[0]", "a[0]", 2),
}
NUMPY_EQ = {op: v[1].replace("np_add", "np.add").replace("np_sum", "np.sum") for op, v in SMALL_OPS.items()}
LAYOUTS = ("ext", "ctypes", "c")
LAYOUT_WHAT = {"ext": "ndgpu._core", "ctypes": "ctypes (NDGPU_NO_EXT=1)", "c": "C library alone"}


def cases(devices):
    """(op, shape, layout, device) of the run."""
    out = []
    for d in devices:
        for op in SMALL_OPS:
            for lay in LAYOUTS:
                out.append((op, "1", lay, d))
        for lay in LAYOUTS:
            out.append(("x + y", str(BIG), lay, d))
    return out


def key(c):
    op, shape, lay, dev = c
    return "%s/float32/%s/%s/%s" % (op, shape, lay, dev)


def summarize(per_call):
    s = sorted(per_call)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"median_s": med, "min_s": s[0], "max_s": s[-1], "samples": n}


def calibrate(run, target):
    """Calls per sample so that one sample takes about `target` seconds."""
    k = 1
    while True:
        t = run(k)
        if t >= target / 4 or k >= 1 << 24:
            return max(1, int(k * target / max(t, 1e-9)))
        k *= 4


def measure(runs, min_time, target):
    """runs: name -> run(k) giving the seconds k calls take. The names are
    timed alternately, a sample each in turn, until min_time has passed for
    each and 5 samples at least. name -> summary."""
    ks = {n: calibrate(r, target) for n, r in runs.items()}
    per = {n: [] for n in runs}
    spent = {n: 0.0 for n in runs}
    while any(len(per[n]) < 5 or spent[n] < min_time for n in runs):
        for n, r in runs.items():
            t = r(ks[n])
            per[n].append(t / ks[n])
            spent[n] += t
    return {n: dict(summarize(per[n]), calls=ks[n] * len(per[n])) for n in runs}


def checksum(values):
    """bench_checksum: sum(x), sum(x * (1 + i % 7)) in C order, as float64."""
    s1 = s2 = 0.0
    for i, v in enumerate(values):
        s1 += v
        s2 += v * (1 + i % 7)
    return [s1, s2]


def checksum_np(np, a):
    a = np.ascontiguousarray(a, dtype=np.float64).ravel()
    w = 1 + np.arange(a.size) % 7
    return [float(a.sum()), float((a * w).sum())]


def flat(v):
    return v if isinstance(v, list) else [v]


def inputs(xp, device, n):
    """The same inputs in every process: x = i / n + 1, y = 2 - i / n."""
    i = xp.arange(n, dtype=xp.float32, device=device)
    return i / n + 1, 2 - i / n


def synced(run, sync):
    """run(k), then the device's queue drained, timed together (a GPU runs the
    ops asynchronously); run itself on the CPU."""
    if sync is None:
        return run

    def timed(k):
        t = time.perf_counter()
        run(k)
        sync()
        return time.perf_counter() - t
    return timed


def device_sync(device):
    """None on the CPU, else a call that waits for the device (nd_synchronize)."""
    if device == "cpu":
        return None
    from ndgpu._array import as_device
    from ndgpu._lib import C, check
    d = as_device(device)._nd
    return lambda: check(C.nd_synchronize(d))


def stmt_globals(xp, x, y):
    return {"x": x, "y": y, "add": xp.add, "xsum": xp.sum}


def result_checksum(np, r):
    if r.size <= 16 or np is None:
        return checksum(flat(r.tolist())) if r.size <= 4096 else None
    return checksum_np(np, np.from_dlpack(r.to_device("cpu")))


def time_package(xp, device, todo, min_time, target, np=None, np_runs=None):
    """The package's rows (ext or ctypes, whichever this process runs) for
    the (op, shape) pairs in todo; with np, NumPy's twins alternately."""
    out, npout = {}, {}
    for op, shape in todo:
        n = int(shape)
        x, y = inputs(xp, device, n)
        g = stmt_globals(xp, x, y)
        stmt = SMALL_OPS[op][0] if n == 1 else "x + y"
        r = eval(stmt, g)
        cs = result_checksum(np, r)
        del r
        tm = timeit.Timer(stmt, globals=g)
        runs = {"ours": synced(tm.timeit, device_sync(device))}
        if np is not None and np_runs is not None:
            runs["numpy"] = np_runs(op, shape, x, y)
        res = measure(runs, min_time, target if n == 1 else 0.0)
        out[(op, shape)] = dict(res["ours"], checksum=cs)
        if "numpy" in res:
            npout[(op, shape)] = res["numpy"]
    return out, npout


def worker_ctypes(args):
    """--worker: the ctypes rows, in this process (NDGPU_NO_EXT=1)."""
    import ndgpu as xp
    from ndgpu import _array
    todo = [tuple(t) for t in json.loads(args.worker)]
    if _array._core is not None:
        print(json.dumps({"error": "the extension is in use (NDGPU_NO_EXT not set)"}))
        return 1
    try:
        import numpy as np  # checksums of the large results
    except ImportError:
        np = None
    out, _ = time_package(xp, args.device_one, todo, args.min_time_s, args.target, np)
    print(json.dumps([[op, shape, v] for (op, shape), v in out.items()]))
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write libndgpu-bench records (one JSON object a line) to this file")
    ap.add_argument("--list", action="store_true", help="print the case keys and exit")
    ap.add_argument("--assume-gpu", action="store_true", help="with --list: list the cuda:0 cases as on a GPU")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "all"])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--min-time", type=float, default=0.0, help="seconds per row (default 0.3, quick 0.1)")
    ap.add_argument("--filter", help="only the case keys holding this text")
    ap.add_argument("--threads", type=int, default=0, help="recorded (the library reads ND_NUM_THREADS)")
    ap.add_argument("--no-verify", action="store_true", help="accepted for compare.py (checksums are cheap here)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--device-one", default="cpu", help=argparse.SUPPRESS)
    ap.add_argument("--target", type=float, default=0.01, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.min_time_s = args.min_time or (0.1 if args.quick else 0.3)
    if args.worker:
        return worker_ctypes(args)

    devices = []
    if args.device in ("cpu", "all"):
        devices.append("cpu")
    if args.device in ("cuda", "all"):
        if args.assume_gpu and args.list:
            devices.append("cuda:0")
        else:
            from ndgpu._lib import C
            if C.nd_cuda_device_count() > 0:
                devices.append("cuda:0")
    todo = [c for c in cases(devices) if not args.filter or args.filter in key(c)]
    if args.list:
        for c in todo:
            print(key(c))
        return 0

    import ndgpu as xp
    from ndgpu import _array
    from ndgpu._lib import C
    core = _array._core
    try:
        import numpy as np
    except ImportError:
        np = None
    t_start = time.time()

    def np_runs(op, shape, x, y):
        if np is None:
            return None
        n = int(shape)
        a = np.from_dlpack(x.to_device("cpu")).copy()
        b = np.from_dlpack(y.to_device("cpu")).copy()
        g = {"a": a, "b": b, "np_add": np.add, "np_sum": np.sum}
        return timeit.Timer(SMALL_OPS[op][1] if n == 1 else "a + b", globals=g).timeit

    rows = {}
    numpy_rows = {}
    numpy_cs = {}
    for dev in devices:
        want = {lay: sorted({(c[0], c[1]) for c in todo if c[2] == lay and c[3] == dev}) for lay in LAYOUTS}
        pairs = sorted(set(want["ext"]) | set(want["ctypes"]) | set(want["c"]))
        # NumPy's results (checksums) once; its times beside the "ext" rows
        if np is not None:
            for op, shape in pairs:
                n = int(shape)
                x, y = inputs(xp, dev, n)
                a = np.from_dlpack(x.to_device("cpu")).copy()
                b = np.from_dlpack(y.to_device("cpu")).copy()
                stmt = SMALL_OPS[op][1] if n == 1 else "a + b"
                numpy_cs[(op, shape)] = checksum_np(np, eval(stmt, {"a": a, "b": b, "np_add": np.add,
                                                                     "np_sum": np.sum}))
        # ext (and NumPy alternately)
        if want["ext"] and core is not None:
            ours, npr = time_package(xp, dev, want["ext"], args.min_time_s, args.target, np, np_runs)
            for k, v in ours.items():
                rows[(k[0], k[1], "ext", dev)] = v
            numpy_rows.update(npr)
        elif want["ext"]:
            for op, shape in want["ext"]:
                rows[(op, shape, "ext", dev)] = {"status": "skipped",
                                                 "message": "ndgpu._core not in use: %s" % _array.ext_error}
        # NumPy for the pairs the ext rows did not time
        left = [p for p in pairs if p not in numpy_rows]
        if np is not None and left:
            for op, shape in left:
                x, y = inputs(xp, dev, int(shape))
                numpy_rows[(op, shape)] = measure({"numpy": np_runs(op, shape, x, y)}, args.min_time_s,
                                                  args.target if shape == "1" else 0.0)["numpy"]
        # the C library alone
        if want["c"] and core is not None:
            for op, shape in want["c"]:
                n = int(shape)
                x, y = inputs(xp, dev, n)
                kind = SMALL_OPS[op][2] if n == 1 else 0
                ref = {0: lambda: x + y, 1: lambda: x + 1.0, 2: lambda: x[0], 3: lambda: xp.sum(x)}[kind]()
                cs = result_checksum(np, ref)
                del ref
                loop = synced(lambda k: core._bench_loop(kind, k, x._h, y._h, 1.0), device_sync(dev))
                res = measure({"c": loop}, args.min_time_s, args.target if n == 1 else 0.0)["c"]
                rows[(op, shape, "c", dev)] = dict(res, checksum=cs)
        elif want["c"]:
            for op, shape in want["c"]:
                rows[(op, shape, "c", dev)] = {"status": "skipped", "message": "the C loop is in ndgpu._core: %s"
                                               % _array.ext_error}
        # ctypes: a subprocess without the extension
        if want["ctypes"]:
            env = dict(os.environ, NDGPU_NO_EXT="1")
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(want["ctypes"]),
                   "--device-one", dev, "--min-time", str(args.min_time_s), "--target", str(args.target)]
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                got = json.loads(p.stdout.strip().splitlines()[-1])
                if isinstance(got, dict):
                    raise ValueError(got["error"])
                for op, shape, v in got:
                    rows[(op, shape, "ctypes", dev)] = v
            except (ValueError, IndexError, KeyError) as e:
                for op, shape in want["ctypes"]:
                    rows[(op, shape, "ctypes", dev)] = {"status": "error", "message": "ctypes worker: %s %s" % (
                        e, p.stderr.strip()[-300:])}

    # records
    threads = args.threads or int(os.environ.get("ND_NUM_THREADS", "0") or 0) or (os.cpu_count() or 1)
    recs = []
    info = (C.nd_build_info() or b"").decode()
    blas = re.search(r"BLAS: ([^;(]+?)\s*(?:\((.*?)\))?(?:;|$)", info)
    env = {"type": "env", "bench": "python", "version": (C.nd_version() or b"").decode(), "build_info": info,
           "blas": blas.group(1) if blas else None,
           "blas_core": (re.search(r"core (\w+)", blas.group(2) or "") or [None, None])[1] if blas else None,
           "cpu_path": _cpu_path(),
           "threads": threads, "nproc": os.cpu_count(), "hostname": platform.node(), "cpu_model": cpu_model(),
           "quick": args.quick, "min_time": args.min_time_s, "cuda_devices": C.nd_cuda_device_count(),
           "devices": [{"device": d} for d in devices], "python": platform.python_version(),
           "numpy": np.__version__ if np is not None else None, "library": xp.library_path,
           "extension": os.path.basename(core.__file__) if core is not None else None,
           "limited_api": hex(core.LIMITED_API) if core is not None else None,
           "env": {k: os.environ[k] for k in ("ND_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                               "ND_DEVICE") if k in os.environ}}
    recs.append(env)
    for c in todo:
        op, shape, lay, dev = c
        v = dict(rows.get(c) or {"status": "error", "message": "not measured"})
        rec = {"type": "measurement", "bench": "python", "op": op, "dtype": "float32", "shape": shape,
               "layout": lay, "device": dev, "threads": threads, "median_s": v.get("median_s"),
               "min_s": v.get("min_s"), "max_s": v.get("max_s"), "calls": v.get("calls"),
               "samples": v.get("samples"), "status": v.get("status", "ok"), "message": v.get("message", ""),
               "note": "%s; NumPy %s" % (LAYOUT_WHAT[lay], NUMPY_EQ[op] if shape == "1" else "a + b"),
               "inputs": [{"dtype": "float32", "shape": [int(shape)], "values": "x = i / n + 1"},
                          {"dtype": "float32", "shape": [int(shape)], "values": "y = 2 - i / n"}],
               "call": {"fn": "python", "expr": SMALL_OPS[op][0] if shape == "1" else "x + y"}}
        if v.get("checksum"):
            rec["checksum"] = v["checksum"]
        else:
            rec["verified"] = False
        nr = numpy_rows.get((op, shape))
        if nr is not None:
            rec["numpy"] = dict(nr, status="ok", checksum=numpy_cs.get((op, shape)),
                                note=NUMPY_EQ[op] if shape == "1" else "a + b")
        recs.append(rec)
    if args.json:
        with open(args.json, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")

    # the table
    print("Python per-call cost: ndgpu %s, %s; library %s; NumPy %s; %s (%s), Python %s" % (
        env["version"], ("ndgpu._core %s (limited API %s)" % (env["extension"], env["limited_api"])
                         if core is not None else "no extension: " + str(_array.ext_error)),
        xp.library_path, env["numpy"] or "-", env["cpu_model"], env["cpu_path"], env["python"]))
    # ratio as compare.py's: NumPy's time / the extension's (> 1: ndgpu faster)
    print("  %-14s %-10s %-8s %12s %12s %12s %12s %9s" % ("op", "shape", "device", "ext", "ctypes", "C alone",
                                                          "NumPy", "vs NumPy"))
    for dev in devices:
        for op, shape in sorted({(c[0], c[1]) for c in todo if c[3] == dev}, key=lambda p: (int(p[1]), p[0])):
            cells = []
            for lay in LAYOUTS:
                v = rows.get((op, shape, lay, dev))
                cells.append(fmt(v.get("median_s")) if v and v.get("median_s") else (v or {}).get("status", "-"))
            nr = numpy_rows.get((op, shape))
            ext = rows.get((op, shape, "ext", dev)) or {}
            ratio = ("%.2fx" % (nr["median_s"] / ext["median_s"])) if nr and ext.get("median_s") else "-"
            print("  %-14s %-10s %-8s %12s %12s %12s %12s %9s" % (op, shape, dev, cells[0], cells[1], cells[2],
                                                                  fmt(nr["median_s"]) if nr else "-", ratio))
        goal = rows.get(("x + y", "1", "ext", dev)) or {}
        if dev == "cpu" and goal.get("median_s"):  # the goal is the CPU's (a GPU's launch costs microseconds)
            print("  goal: x + y, 1-element float32 <= 0.5 us on %s: %s (%s)" % (
                dev, "MET" if goal["median_s"] <= GOAL_S else "MISSED", fmt(goal["median_s"])))
    print("  (medians per call; %.1f s)" % (time.time() - t_start))
    bad = [c for c in todo if (rows.get(c) or {}).get("status", "ok") == "error"]
    return 1 if bad else 0


def _cpu_path():
    from ndgpu._lib import lib
    try:
        f = lib.nd_cpu_path
    except AttributeError:
        return None
    import ctypes
    f.restype = ctypes.c_char_p
    return (f() or b"").decode()


def fmt(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return "%.3f us" % (s * 1e6)
    return "%.3f ms" % (s * 1e3)


if __name__ == "__main__":
    if not os.environ.get("PYTHONPATH"):  # the checkout's package, unless PYTHONPATH names one
        sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.exit(main())
