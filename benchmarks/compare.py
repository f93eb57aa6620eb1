#!/usr/bin/env python3
"""compare.py - run the libndgpu benchmarks and the same cases through NumPy
(and CuPy on a GPU machine) in the same run, alternating A/B, and report
speed ratios (libndgpu speed / NumPy speed: > 1 means libndgpu is faster).

    python3 benchmarks/compare.py --quick            # what `make bench` runs
    python3 benchmarks/compare.py                    # full (`make bench-full`)
    python3 benchmarks/compare.py --benches matmul --filter float32 --rounds 1

For each benchmark binary (a case group) and each round (default 2): run the
binary (--json), then a NumPy worker subprocess on the same cases (same
inputs, bit for bit: both sides use the counter-based generator described
in bench_common.h), then CuPy for the GPU cases. The best median of each
side over the rounds is compared. The libndgpu results are cross-checked
against NumPy's (checksums of the outputs), and the numbers each record
claims (GB/s, GFLOP/s, min <= median <= max) are recomputed.

Writes benchmarks/results/<machine-kind>-<YYYY-MM-DD>.json (every raw
measurement, the ratios, versions, BLAS cores, thread counts), a .log with
the binaries' tables and a .png plot (one bar per case, log ratio axis;
needs matplotlib, installed with pip when missing unless --no-install).

On a GPU the table ends with the goals of the CUDA backend (add and sum
against the raw D2D copy's bandwidth, GEMM against raw cuBLAS, ratios to
CuPy, tiny-op and pool times, transfers against raw pinned cudaMemcpy),
each computed from this run's rows (GPU_GOALS below; also "goals" in the
JSON).

    python3 benchmarks/compare.py --dry-run --quick --device cuda

runs nothing: it lists each binary's cases (--list --assume-gpu, so a
machine without a GPU shows a GPU machine's plan), the NumPy/CuPy call each
maps to, and which goal each goal case is, and fails when a goal's case or
a GPU case's CuPy equivalent is missing.

The "python" group is no binary: benchmarks/bench_python_overhead.py
times the Python package on tiny and 10^7-element arrays (through its
compiled module, through its ctypes fallback, and the C library alone) and
NumPy in the same process, and writes the same records with each row's
NumPy time inside; its goal line (x + y on 1-element float32 <= 0.5 us)
is among the CPU goals. It runs the checkout's python/ on the library of
the build the binaries come from (NDGPU_LIBRARY overrides), after make
python-ext.

Exit status: 0 when everything ran and matched, 1 when a libndgpu case
failed (error or wrong result) or disagreed with NumPy, 2 for setup errors.
The NumPy/CuPy side is benchmarks/bench_worker.py, the plot benchmarks/plot.py.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCHES = ["elementwise", "reduce", "matmul", "copy", "overhead", "transfer", "sort", "index", "scan", "manip", "mx",
           "fft", "complex", "linalg", "expr", "special", "special_gamma", "random", "sparse", "python"]
# Run order of --device cuda (cheapest goal groups first; copy has no goal).
CUDA_ORDER = ["overhead", "matmul", "reduce", "elementwise", "transfer", "copy", "sort", "index", "scan", "manip", "mx",
              "fft", "complex", "linalg", "expr", "special", "special_gamma", "random", "python"]
# the group that is a Python script, not a bench_* binary (see the docstring)
PY_BENCH = "python"


def bench_cmd(bench, bindir):
    """The command that runs a case group (before its options)."""
    if bench == PY_BENCH:
        return [sys.executable, os.path.join(HERE, "bench_python_overhead.py")]
    return [os.path.join(bindir, "bench_" + bench)]


def bench_available(bench, bindir):
    return bench == PY_BENCH or os.access(os.path.join(bindir, "bench_" + bench), os.X_OK)


def python_group_env(bindir, log):
    """Environment of the python group: the checkout's package (python/, its
    compiled module built by make python-ext) on the shared library of the
    build the binaries come from, linked from that build's objects when only
    the static library is there; NDGPU_LIBRARY overrides."""
    env = {"PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "python")] +
                                         ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))}
    lib = os.environ.get("NDGPU_LIBRARY")
    if not lib:
        build = os.path.dirname(os.path.abspath(bindir))
        lib = os.path.join(build, "libndgpu.so")
        if not os.path.exists(lib) and os.path.exists(os.path.join(build, "libndgpu.a")):
            # the CUDA half is in the build when its objects are (the
            # folder alone is made by every build, CPU-only ones too)
            cu = os.path.join(build, "src", "cuda")
            cuda = "1" if os.path.isdir(cu) and any(f.endswith(".o") for f in os.listdir(cu)) else "0"
            log("compare: [python] linking %s (make BUILD=%s CUDA=%s)" % (lib, build, cuda))
            subprocess.run(["make", "-C", ROOT, "--no-print-directory", "BUILD=" + build, "CUDA=" + cuda, lib],
                           stdout=subprocess.DEVNULL)
    if os.path.exists(lib):
        env["NDGPU_LIBRARY"] = lib
    else:
        log("compare: [python] no %s: the package looks for a library itself (make lib builds one)" % lib)
    r = subprocess.run(["make", "-C", ROOT, "--no-print-directory", "python-ext"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        log("compare: [python] make python-ext failed (the extension rows say why): %s"
            % " | ".join(r.stdout.strip().splitlines()[-3:]))
    return env


def case_key(rec):
    """Device-independent identity of a case (same inputs, same call)."""
    return json.dumps([rec["bench"], rec["op"], rec["dtype"], rec["shape"], rec["layout"], rec.get("call"),
                       rec.get("inputs")], sort_keys=True)


def label(rec, with_dev=True):
    s = "%s %s %s %s %s" % (rec["bench"], rec["op"], rec["dtype"], rec["shape"], rec["layout"])
    return s + (" " + rec["device"] if with_dev else "")


def read_jsonl(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        out.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def ensure_module(name, pip_name, allow_install, log):
    try:
        __import__(name)
        return True, None
    except ImportError:
        pass
    if not allow_install:
        return False, "%s is not installed (python3 -m pip install %s)" % (name, pip_name)
    log("compare: %s missing, installing it: %s -m pip install %s" % (name, sys.executable, pip_name))
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", pip_name]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 and "externally-managed" in r.stdout:
        # PEP 668 (Debian's python3): install into the user site instead.
        log("compare: externally managed Python: retrying with --user --break-system-packages")
        r = subprocess.run(cmd + ["--user", "--break-system-packages"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        import site
        site.addsitedir(site.getusersitepackages())
    if r.returncode != 0:
        last = (r.stdout.strip().splitlines() or ["?"])[-1]
        return False, "%s is not installed and pip failed: %s" % (name, last)
    import importlib
    importlib.invalidate_caches()
    try:
        __import__(name)
        return True, None
    except ImportError as e:
        return False, "%s still not importable after pip install: %s" % (name, e)


def module_available_in_subprocess(name):
    r = subprocess.run([sys.executable, "-c", "import %s" % name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or ["?"])[-1]


def run_ours(binpath, args, threads, json_path, logf, verify=True, extra_env=None):
    cmd = list(binpath) + ["--json", json_path, "--threads", str(threads), "--device", args.device]
    if args.quick:
        cmd.append("--quick")
    if not verify:
        cmd.append("--no-verify")
    if args.filter:
        cmd += ["--filter", args.filter]
    if args.min_time:
        cmd += ["--min-time", str(args.min_time)]
    # OMP_WAIT_POLICY=passive: the benchmark harness (input generation,
    # reference checks, the triad) uses OpenMP; the library does not (it has
    # its own thread pool). Without it the harness's idle OpenMP threads spin
    # for ~17 ms after each region and steal the cores the timed code runs on.
    env = dict(os.environ, ND_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive", **(extra_env or {}))
    logf.write("$ %s\n" % " ".join(cmd))
    logf.flush()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=None, text=True)
    logf.write(p.stdout)
    if p.stderr:
        logf.write(p.stderr)
    logf.flush()
    if args.verbose:
        sys.stdout.write(p.stdout)
    return p.returncode, p.stdout, p.stderr or ""


def run_worker(kind, cases, args, threads, tmpdir, tag, verify=True):
    cpath = os.path.join(tmpdir, "%s-%s-cases.json" % (kind, tag))
    rpath = os.path.join(tmpdir, "%s-%s-result.jsonl" % (kind, tag))
    with open(cpath, "w") as f:
        json.dump(cases, f)
    min_time = args.min_time or (0.05 if args.quick else 0.2)
    cmd = [sys.executable, os.path.join(HERE, "bench_worker.py"), "--lib", kind, "--cases", cpath, "--result", rpath,
           "--min-time", str(min_time)] + ([] if verify else ["--no-checksum"])
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=None, text=True)
    lines = read_jsonl(rpath)
    meta = lines[0] if lines and lines[0].get("type") == "worker" else {}
    res = {r["key"]: r for r in lines if "key" in r}
    err = None
    if p.returncode != 0:
        tail = (p.stdout or "").strip().splitlines()[-3:]
        err = "%s worker exited with status %d: %s" % (kind, p.returncode, " | ".join(tail))
    return meta, res, err


def better(a, b):
    """The record with the lower median (None-safe)."""
    if a is None or a.get("median_s") is None:
        return b
    if b is None or b.get("median_s") is None:
        return a
    return a if a["median_s"] <= b["median_s"] else b


def checksum_rtol(rec):
    dt = rec["dtype"].split("->")[-1]
    if rec["op"] == "argmax":
        return 0.0
    if rec["op"] == "cumsum" and dt in ("float32", "float16", "bfloat16"):
        # a running sum of 1.6e7 float32 terms: NumPy adds strictly left to
        # right, libndgpu in blocks (checked against a double reference by
        # bench_scan); the two float32 roundings drift apart by ~1e-5
        return 1e-3
    if rec.get("layout") == "tf32":  # TF32 products: ~1e-3 per element, cuBLAS algorithms may differ
        return 1e-3
    if rec["bench"] == "complex" and rec.get("op") == "sum":  # 1.6e7-term sums: pairwise in both, blocked differently
        return 1e-5
    if rec["bench"] == "linalg" and rec.get("op") == "norm":
        # both sides: sqrt(sdot) accumulated in float32 over 1.7e7 terms, by two OpenBLAS builds that block differently
        return 2e-4
    if rec["bench"] == "linalg":  # LAPACK builds differ in blocking: well-conditioned inputs, a few ulps apart
        return 1e-7 if dt == "float64" else 1e-4
    if rec["bench"] == "fft":
        # sums over a transform's outputs cancel (sum_k X[k] = n x[0]); each side's rounding differs
        # (pocketfft / cuFFT / libndgpu's engine), so allow a few hundred units of float32's eps
        return 1e-9 if dt in ("complex128", "float64") else 3e-5
    return {"float64": 1e-9, "float32": 2e-5, "float16": 1e-4, "bfloat16": 1e-3, "complex64": 2e-5,
            "complex128": 1e-9}.get(dt, 1e-6)


def close(a, b, rtol):
    if a is None or b is None:
        return True
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-300


def verify_claims(rec):
    """Recompute what the record claims; returns a list of problems."""
    bad = []
    if rec.get("status") != "ok":
        return bad
    med, mn, mx = rec.get("median_s"), rec.get("min_s"), rec.get("max_s")
    if med is None or mn is None or mx is None or not (0 < mn <= med <= mx):
        bad.append("min/median/max inconsistent (%r, %r, %r)" % (mn, med, mx))
        return bad
    for work, rate, scale in (("bytes", "gbps", 1e-9), ("flops", "gflops", 1e-9)):
        if rec.get(work):
            want = rec[work] / med * scale
            if rec.get(rate) is None or not close(rec[rate], want, 1e-6):
                bad.append("%s %r != %s/median = %.6g" % (rate, rec.get(rate), work, want))
    if rec.get("samples", 0) < 3 or rec.get("calls", 0) < rec.get("samples", 0):
        bad.append("too few samples (%r samples, %r calls)" % (rec.get("samples"), rec.get("calls")))
    if (rec.get("call") and rec["call"].get("fn") not in ("empty",) and not rec.get("checksum")
            and rec.get("verified", True)):
        bad.append("no checksum of the result")
    return bad


def fmt_time(s):
    if s is None:
        return "-"
    if abs(s) < 1e-8:
        return "%.2f ns" % (s * 1e9)
    if s < 1e-6:
        return "%.0f ns" % (s * 1e9)
    if s < 1e-3:
        return "%.2f us" % (s * 1e6)
    if s < 1:
        return "%.2f ms" % (s * 1e3)
    return "%.3f s" % s


def fmt_clock(s):
    s = int(round(s))
    return "%d:%02d" % (s // 60, s % 60)


def fmt_rate(rec):
    if rec.get("gflops"):
        return "%.1f GF/s" % rec["gflops"]
    if rec.get("gbps"):
        return "%.2f GB/s" % rec["gbps"]
    return "-"


def machine_kind(envs, nproc):
    for e in envs:
        for d in e.get("devices", []):
            if d.get("device", "").startswith("cuda") and d.get("name"):
                return re.sub(r"[^a-z0-9]+", "-", d["name"].lower()).strip("-")
    cpu, path = "unknown", None
    for e in envs:
        cpu = e.get("cpu_model") or cpu
        path = path or e.get("cpu_path")
    # "Intel(R) Xeon(R) Processor" -> intel-xeon, "AMD EPYC 7B13 64-Core
    # Processor" -> amd-epyc-7b13-64-core: the marks, "CPU", "Processor" and
    # the clock say nothing about the kind
    name = re.sub(r"\((r|tm)\)|\bcpu\b|\bprocessor\b|@.*$", " ", cpu.lower())
    kind = "cpu%d-%s" % (nproc, re.sub(r"[^a-z0-9]+", "-", name).strip("-")[:40] or "unknown")
    # one CPU model name ("AMD EPYC") covers machines with and without
    # AVX-512 (Zen 2 and Zen 5 VMs): records of a lower path say so in
    # their name, so they never overwrite or pass for the AVX-512 ones
    first = (path or "").split()[0] if path else ""
    return kind + amd_generation(cpu) + ("-" + first if first and first != "avx512" else "")


def amd_generation(cpu_name):
    """"-zen4", "-zen5", ... for an AMD CPU whose name does not say it.

    A VM's CPU name is often just "AMD EPYC" for Zen 2, Zen 4 and Zen 5
    alike, which differ in vector width, caches and the BLAS kernels that
    run, so without this their records would share a name and the newest
    would overwrite the other. The generation comes from the family and
    model numbers in /proc/cpuinfo (AMD's published ranges)."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read(8192)
        vendor = re.search(r"^vendor_id\s*:\s*(\S+)", info, re.M).group(1)
        fam = int(re.search(r"^cpu family\s*:\s*(\d+)", info, re.M).group(1))
        model = int(re.search(r"^model\s*:\s*(\d+)", info, re.M).group(1))
    except (OSError, AttributeError, ValueError):
        return ""
    if vendor != "AuthenticAMD" or re.search(r"zen", cpu_name, re.I):
        return ""
    if fam == 23:
        gen = "zen2" if model >= 0x30 else "zen1"
    elif fam == 25:
        gen = "zen4" if (model >> 4) in (0x1, 0x6, 0x7, 0xA) else "zen3"
    elif fam == 26:
        gen = "zen5"
    else:
        return ""
    return "-" + gen


class State:
    """Everything measured so far (so a partial record can be written)."""

    def __init__(self):
        self.ours_best, self.ours_all, self.envs, self.workers = {}, [], [], {}
        # checksums by case from whichever round verified it (the first;
        # later rounds time only), for the side whose best median came later
        self.ours_cs, self.np_cs, self.cp_cs = {}, {}, {}
        self.np_best, self.cp_best, self.np_all, self.cp_all = {}, {}, [], []
        self.problems = []
        self.numpy_why = self.cupy_why = None
        self.cupy_checked = False
        self.t_start = time.time()
        self.done = []
        self.bench_seconds = {}   # wall time of each case group, both sides and every round

    def add_ours(self, recs, rnd):
        for r in recs:
            if r.get("type") == "env":
                if rnd == 1:
                    self.envs.append(r)
                continue
            r["round"] = rnd
            r["key"] = case_key(r)
            self.ours_all.append(r)
            k = (r["key"], r["device"])
            if r.get("checksum"):
                self.ours_cs.setdefault(k, r["checksum"])
            cur = self.ours_best.get(k)
            if cur is None:
                self.ours_best[k] = r
            elif r.get("status") != "ok":
                if cur.get("status") == "ok":  # a failure in any round counts
                    self.ours_best[k] = r
            elif cur.get("status") == "ok":
                self.ours_best[k] = better(cur, r)

    def add_worker(self, kind, res, rnd):
        best, allr, cs = ((self.np_best, self.np_all, self.np_cs) if kind == "numpy"
                          else (self.cp_best, self.cp_all, self.cp_cs))
        for k, v in res.items():
            v["round"] = rnd
            if v.get("checksum"):
                cs.setdefault(k, v["checksum"])
            allr.append(v)
            best[k] = better(best.get(k), v) if v.get("status") == "ok" else best.get(k, v)


def merge(st):
    """Rows of the table: one per libndgpu case, with the checks done."""
    rows = []
    counts = {"fail": 0, "mismatch": 0, "claim": 0}
    for (key, dev), r in st.ours_best.items():
        row = {"label": label(r), "bench": r["bench"], "op": r["op"], "dtype": r["dtype"], "shape": r["shape"],
               "layout": r["layout"], "device": dev, "threads": r.get("threads"), "status": r.get("status"),
               "message": r.get("message", ""), "median_s": r.get("median_s"), "min_s": r.get("min_s"),
               "max_s": r.get("max_s"), "gbps": r.get("gbps"), "gflops": r.get("gflops"),
               "blas_core": r.get("blas_core"), "ratio_to_raw": r.get("ratio_to_raw"),
               "raw_median_s": r.get("raw_median_s"), "raw_op": r.get("raw_op"),
               "fraction_of_triad": r.get("fraction_of_triad"), "fraction_of_copy": r.get("fraction_of_copy"),
               "triad_gbps": r.get("triad_gbps"), "fraction_of_gather": r.get("fraction_of_gather"),
               "copy_gbps": r.get("copy_gbps"), "ceiling": bool(r.get("ceiling")),
               "door_cost_s": r.get("door_cost_s"), "empty_call_s": r.get("empty_call_s"),
               "profiler_cost_s": r.get("profiler_cost_s"), "unprofiled_s": r.get("unprofiled_s"),
               "builtin_s": r.get("builtin_s"), "extra_s": r.get("extra_s"), "disk_hit_s": r.get("disk_hit_s"),
               "eager_alloc_s": r.get("eager_alloc_s"), "eager_out_s": r.get("eager_out_s"),
               "speedup": r.get("speedup"), "caching_s": r.get("caching_s"), "vs_caching": r.get("vs_caching"),
               "round": r.get("round"), "ratio_numpy": None, "ratio_cupy": None, "numpy": None, "cupy": None,
               "numpy_why": None, "cupy_why": None, "checks": []}
        if r.get("status") in ("wrong", "error"):
            counts["fail"] += 1
        claims = verify_claims(r)
        if claims:
            counts["claim"] += 1
            row["checks"] += ["claim: " + c for c in claims]
        for side, best, side_cs, why_global in (("numpy", st.np_best, st.np_cs, st.numpy_why),
                                                ("cupy", st.cp_best, st.cp_cs, st.cupy_why)):
            if side == "cupy" and not dev.startswith("cuda"):
                row["cupy_why"] = "-"
                continue
            ref = best.get(key)
            if not r.get("call"):
                row[side + "_why"] = "ceiling" if r.get("ceiling") else "n/a"
            elif why_global:
                row[side + "_why"] = why_global
            elif ref is None:
                row[side + "_why"] = "no CPU case" if side == "numpy" else "not run"
            elif ref.get("status") != "ok":
                row[side + "_why"] = "%s: %s" % (ref.get("status"), ref.get("message", ""))
            else:
                row[side] = {k: ref.get(k) for k in ("median_s", "min_s", "max_s", "calls", "samples", "note",
                                                     "round")}
                if r.get("status") == "ok" and r.get("median_s"):
                    row["ratio_" + side] = ref["median_s"] / r["median_s"]
                elif r.get("status") != "ok":
                    row[side + "_why"] = "libndgpu " + r.get("status", "?")
                cs = r.get("checksum") or st.ours_cs.get((key, dev))
                rc = ref.get("checksum") or side_cs.get(key)
                if cs and rc:
                    rtol = checksum_rtol(r)
                    if not (close(cs[0], rc[0], rtol) and close(cs[1], rc[1], rtol)):
                        counts["mismatch"] += 1
                        row["checks"].append("%s mismatch: libndgpu checksum %r vs %s %r (rtol %g)"
                                             % (side, cs, side, rc, rtol))
                    else:
                        row["checks"].append("matches " + side)
        rows.append(row)
    order = {b: i for i, b in enumerate(BENCHES)}
    rows.sort(key=lambda x: (order.get(x["bench"], 99), x["device"] != "cpu"))
    return rows, counts


def summarize(rows):
    order = {b: i for i, b in enumerate(BENCHES)}
    groups = {}
    for row in rows:
        # the python group's family figure is the package as users run it
        # (the compiled module); its ctypes-fallback and C-alone rows stay in
        # the table as references
        if row["bench"] == PY_BENCH and row.get("layout") != "ext":
            continue
        for side in ("numpy", "cupy"):
            v = row["ratio_" + side]
            if v:
                groups.setdefault((row["bench"], row["device"], side), []).append(v)
    summary = {}
    for (b, d, side), vals in sorted(groups.items(), key=lambda x: (order.get(x[0][0], 99), x[0][1], x[0][2])):
        g = math.exp(sum(math.log(v) for v in vals) / len(vals))
        summary["%s/%s/%s" % (b, d, side)] = {"bench": b, "device": d, "vs": side, "geomean_ratio": g,
                                              "cases": len(vals), "faster": sum(1 for v in vals if v > 1)}
    return summary


def case_size(shape):
    n = 1
    for part in str(shape).split("x"):
        try:
            n *= int(part)
        except ValueError:
            return 0
    return n


def sel(bench, op, dtype=None, shape=None, layout=None, min_size=0):
    """Predicate on a row (or a parsed case key): each field a value, a
    tuple of values or None (any)."""
    def want(v, w):
        return w is None or (v in w if isinstance(w, tuple) else v == w)

    def pred(r):
        return (r["bench"] == bench and want(r["op"], op) and want(r["dtype"], dtype) and want(r["shape"], shape)
                and want(r["layout"], layout) and case_size(r["shape"]) >= min_size)
    return pred


# The GPU goals of the CUDA backend, each evaluated on this run's cuda rows.
# The first lines are the goals of the first GPU record (the quick suite,
# docs/gpu-check.md); the lines after them, from the CUDA backend's issues,
# hold too. metric: a row field ("ratio_cupy": CuPy median / libndgpu
# median; "fraction_of_copy": GB/s / the raw D2D copy's GB/s in the same
# binary; "ratio_to_raw": raw cuBLAS median / nd_matmul median;
# "vs_raw_pinned": GB/s / raw pinned cudaMemcpy's GB/s, same direction and
# size, the link's peak as measured in this run; "median_s": seconds per
# call). agg: "each" (one line per case), "worst" (the worst case of the
# group), "largest" (each op/layout at its largest size). A goal against
# CuPy reads "n/a" where CuPy is not installed.
GPU_GOALS = [
    # the first GPU record
    ("GEMM n = 8192 float32, bfloat16 vs raw cuBLAS",
     sel("matmul", "matmul", ("float32", "bfloat16"), "8192x8192", "contig"), "ratio_to_raw", ">=", 0.98, "each"),
    ("add float32 1.6e7: bandwidth vs raw D2D copy",
     sel("elementwise", "add", "float32", "16000000", "contig"), "fraction_of_copy", ">=", 0.90, "each"),
    ("sum float32 1.6e7: bandwidth vs raw D2D copy", sel("reduce", "sum", "float32", "16000000", "all"),
     "fraction_of_copy", ">=", 0.85, "each"),
    ("tiny op (n = 1, 100): wall time per call", sel("overhead", ("add", "sum"), shape=("1", "100")),
     "median_s", "<=", 5e-6, "each"),
    ("pinned H2D (nd_copy_async) vs the link's peak (raw pinned cudaMemcpy)",
     sel("transfer", "h2d", layout="pinned_async"), "vs_raw_pinned", ">=", 0.9, "largest"),
    ("pool alloc+free: nd_empty + nd_release per pair",
     sel("overhead", "empty+release", layout="alloc"), "median_s", "<=", 0.5e-6, "each"),
    ("sort float32 1e7 within 1.5x of CuPy's time", sel("sort", "sort", "float32", "10000000"),
     "ratio_cupy", ">=", 1 / 1.5, "each"),
    # run-time compiled kernels and fused expressions (bench_expr, bench_overhead)
    ("fused a*b+c float32 2.56e8 into an out: bandwidth vs raw D2D copy",
     sel("expr", "expr_fma", "float32", "256000000", "out"), "fraction_of_copy", ">=", 0.90, "each"),
    ("kernel call (n = 1, 100) within 2 us of nd_add into an out", sel("overhead", "kernel", layout="out"),
     "extra_s", "<=", 2e-6, "each"),
    # control of the GPU: graphs and pool kinds (bench_overhead)
    ("graph: a 20-tiny-op step replayed in <= 1/5 of its eager time", sel("overhead", "graph step", layout="replay"),
     "speedup", ">=", 5.0, "each"),
    ("async pool (cudaMallocAsync) alloc+free within 1.5x of the caching pool",
     sel("overhead", "empty+release", layout="async"), "vs_caching", "<=", 1.5, "each"),
    # the CUDA backend's issues (parts 1 and 2)
    ("add float32 2.56e8: bandwidth vs raw D2D copy",
     sel("elementwise", "add", "float32", "256000000", "contig"), "fraction_of_copy", ">=", 0.90, "each"),
    ("add float32 2.56e8 vs CuPy", sel("elementwise", "add", "float32", "256000000", "contig"), "ratio_cupy", ">=",
     1.0, "each"),
    ("exp (contiguous, n >= 1e6) vs CuPy", sel("elementwise", "exp", layout="contig", min_size=1000000),
     "ratio_cupy", ">=", 1.0, "worst"),
    ("where (contiguous, n >= 1e6) vs CuPy", sel("elementwise", "where", layout="contig", min_size=1000000),
     "ratio_cupy", ">=", 1.0, "worst"),
    ("broadcast add (row, column) vs CuPy", sel("elementwise", "add", layout=("bcast_row", "bcast_col")),
     "ratio_cupy", ">=", 1.0, "worst"),
    ("strided add vs CuPy", sel("elementwise", "add", layout="strided"), "ratio_cupy", ">=", 1.0, "worst"),
    ("sum float32 2.56e8: bandwidth vs raw D2D copy", sel("reduce", "sum", "float32", "256000000", "all"),
     "fraction_of_copy", ">=", 0.85, "each"),
    ("sum float32 16384^2 axis 0/1: bandwidth vs raw D2D copy",
     sel("reduce", "sum", "float32", "16384x16384", ("axis0", "axis1")), "fraction_of_copy", ">=", 0.85, "each"),
    ("sum float32 2.56e8, 16384^2 axis 0/1 vs CuPy",
     sel("reduce", "sum", "float32", ("256000000", "16384x16384")), "ratio_cupy", ">=", 1.0, "each"),
    ("GEMM n = 8192 TF32, float16 vs raw cuBLAS",
     lambda r: (sel("matmul", "matmul", "float32", "8192x8192", "tf32")(r)
                or sel("matmul", "matmul", "float16", "8192x8192", "contig")(r)), "ratio_to_raw", ">=", 0.98, "each"),
    ("batched matmul 1000 x (16x16) vs CuPy", sel("matmul", "matmul", shape="1000x16x16", layout="batched"),
     "ratio_cupy", ">=", 1.0, "each"),
    ("pinned D2H (nd_copy_async) vs raw pinned cudaMemcpy", sel("transfer", "d2h", layout="pinned_async"),
     "vs_raw_pinned", ">=", 0.9, "largest"),
    ("pageable staged H2D/D2H vs raw pinned cudaMemcpy",
     sel("transfer", ("h2d", "d2h"), layout=("out", "host_ptr")), "vs_raw_pinned", ">=", 0.7, "largest"),
]


# The CPU goals (CPU speed on every machine users have), each
# evaluated on this run's cpu rows against NumPy ("ratio_numpy": NumPy
# median / libndgpu median). agg "geomean": the geometric mean of the
# group's ratios (one line); the others as GPU_GOALS. A goal holds when it
# holds on Intel and on AMD: the record names the CPU and its path.
CPU_GOALS = [
    # the C library's cases (the python group's rows hold the Python layers' cost and its ctypes fallback)
    ("every case with a NumPy twin", lambda r: r["bench"] != PY_BENCH, "ratio_numpy", ">=", 1.0, "worst"),
    ("elementwise: geometric mean", sel("elementwise", None), "ratio_numpy", ">=", 2.0, "geomean"),
    ("reductions: geometric mean", sel("reduce", None), "ratio_numpy", ">=", 2.0, "geomean"),
    ("matmul: geometric mean", sel("matmul", None), "ratio_numpy", ">=", 1.0, "geomean"),
    ("exp, tanh, sigmoid float32 1.6e7", sel("elementwise", ("exp", "tanh", "sigmoid"), "float32", "16000000",
                                             "contig"), "ratio_numpy", ">=", 2.0, "each"),
    ("exp, tanh, sigmoid float64 1.6e7", sel("elementwise", ("exp", "tanh", "sigmoid"), "float64", "16000000",
                                             "contig"), "ratio_numpy", ">=", 1.5, "each"),
    ("exp, tanh, sigmoid on transposed inputs", sel("elementwise", ("exp", "tanh", "sigmoid"), layout="transposed"),
     "ratio_numpy", ">=", 1.5, "each"),
    ("argmax, argmin float32", sel("reduce", ("argmax", "argmin"), "float32"), "ratio_numpy", ">=", 1.5, "each"),
    # special functions (bench_special): the twins are SciPy's ufuncs on NumPy arrays
    ("erf, expit, gelu, silu float32 1.6e7 vs SciPy", sel("special", ("erf", "expit", "gelu", "silu"), "float32",
                                                         "16000000"), "ratio_numpy", ">=", 2.0, "each"),
    # special functions (bench_special_gamma): the twin is scipy.special's ufunc
    ("gammaln float64 1.6e7 vs scipy.special", sel("special_gamma", "gammaln", "float64", "16000000"), "ratio_numpy",
     ">=", 1.5, "each"),
    # fused expressions (nd_expr_eval, bench_expr): the *_numexpr rows' twin is numexpr.evaluate
    ("fused a*b+c float32 1.6e7 vs NumPy's a*b+c", sel("expr", "expr_fma", "float32", "16000000"), "ratio_numpy",
     ">=", 2.5, "each"),
    ("fused a*b+c float32 1.6e7 vs numexpr (same threads)", sel("expr", "expr_fma_numexpr", "float32", "16000000"),
     "ratio_numpy", ">=", 1.0, "each"),
    ("fused a*b+c float32 1.6e7 into an out: bandwidth vs the STREAM triad",
     sel("expr", "expr_fma", "float32", "16000000", "out"), "fraction_of_triad", ">=", 0.90, "each"),
    ("fused GELU chain float32 1.6e7 vs NumPy's unfused chain", sel("expr", "expr_gelu", "float32", "16000000"),
     "ratio_numpy", ">=", 3.0, "each"),
    ("max, min", sel("reduce", ("max", "min")), "ratio_numpy", ">=", 1.5, "each"),
    ("batched matmul 1000 x (16x16) float32", sel("matmul", "matmul", "float32", "1000x16x16", "batched"),
     "ratio_numpy", ">=", 2.0, "each"),
    # NumPy breadth, part 1
    ("sort, argsort float32 1e7", sel("sort", ("sort", "argsort"), "float32", "10000000"), "ratio_numpy", ">=", 1.5,
     "each"),
    ("topk k=10 over the last axis of 4096x4096 vs np.argpartition", sel("sort", "topk", "float32", "4096x4096"),
     "ratio_numpy", ">=", 3.0, "each"),
    ("cumsum float32 1.6e7", sel("scan", "cumsum", "float32", "16000000"), "ratio_numpy", ">=", 1.5, "each"),
    ("gamma, binomial, Poisson draws 1e7 vs numpy.random.Generator(Philox)",
     sel("random", ("gamma", "binomial", "poisson"), shape="10000000"), "ratio_numpy", ">=", 2.0, "each"),
    ("boolean mask select float32 1.6e7", sel("index", "mask_select", "float32", "16000000"), "ratio_numpy", ">=",
     1.5, "each"),
    ("take along axis 0 of (1e6, 16) float32", sel("index", "take", "float32", "1000000x16"), "ratio_numpy", ">=",
     1.5, "each"),
    # the profiler: what it costs per op, disabled and recording
    ("profiler off: the door every op opens", sel("overhead", "profiler door (off)"), "door_cost_s", "<=", 1e-9,
     "each"),
    ("profiler on: recording one nd_add (n = 1, 100)", sel("overhead", "add", layout="out,profiled"),
     "profiler_cost_s", "<=", 300e-9, "each"),
    # run-time compiled kernels: what a cached call adds to the library's own op, the first
    # compile, and a new process that finds the kernel in the disk cache
    ("kernel call (n = 1, 100) within 1 us of nd_add into an out", sel("overhead", "kernel", layout="out"),
     "extra_s", "<=", 1e-6, "each"),
    ("kernel: first compile of a small kernel", sel("overhead", "kernel compile"), "median_s", "<=", 0.5, "each"),
    # graphs: a step of 20 tiny ops replayed from its recorded loops vs issued op by op
    ("graph: a 20-tiny-op step replayed >= 2x faster than issued", sel("overhead", "graph step", layout="replay"),
     "speedup", ">=", 2.0, "each"),
    ("kernel: disk-cache hit in a new process", sel("overhead", "kernel compile"), "disk_hit_s", "<=", 0.02, "each"),
    # mixed precision: bench_mx (softmax family, cross-entropy)
    ("softmax over the last axis of (4096, 4096) float32 vs exp(x - max) / sum",
     sel("mx", "softmax", "float32", "4096x4096", "contig"), "ratio_numpy", ">=", 2.0, "each"),
    # the issue sets it for CPUs with AVX512-BF16 or AMX; libndgpu has no bfloat16 kernel yet (the
    # widened float32 path everywhere), so this line reports where that path stands on any CPU
    ("bfloat16 GEMM 2048 vs cblas_sgemm, same values (goal on AVX512-BF16/AMX CPUs)",
     sel("matmul", "matmul", "bfloat16", "2048x2048", "contig"), "ratio_to_raw", ">=", 1.5, "each"),
    # complex numbers and the FFT: bench_fft against numpy.fft
    ("fft of 2^20 complex64 vs np.fft.fft", sel("fft", "fft", "complex64", "1048576", "contig"), "ratio_numpy", ">=",
     1.0, "each"),
    ("rfft of 2^20 float32 vs np.fft.rfft", sel("fft", "rfft", "float32", "1048576", "contig"), "ratio_numpy", ">=",
     1.0, "each"),
    ("fft2 of 4096x4096 complex64 vs np.fft.fft2", sel("fft", "fft2", "complex64", "4096x4096", "contig"),
     "ratio_numpy", ">=", 1.5, "each"),
    # bench_complex (native complex loops)
    ("complex64 multiply of 1.6e7 vs np.multiply(out=)", sel("complex", "multiply", "complex64", "16000000", "contig"),
     "ratio_numpy", ">=", 1.5, "each"),
    # numpy.linalg: bench_linalg
    ("solve 2048x2048 float64 (b 2048x16) vs np.linalg.solve", sel("linalg", "solve", "float64", "2048x2048", "rhs16"),
     "ratio_numpy", ">=", 1.0, "each"),
    ("svd 1024 float64 (full_matrices=False) vs np.linalg.svd", sel("linalg", "svd", "float64", "1024x1024"),
     "ratio_numpy", ">=", 1.0, "each"),
    ("eigh 1024 float64 vs np.linalg.eigh", sel("linalg", "eigh", "float64", "1024x1024"), "ratio_numpy", ">=", 1.0,
     "each"),
    ("batched inv of 10,000 4x4 float32 vs np.linalg.inv", sel("linalg", "inv", "float32", "10000x4x4", "batched"),
     "ratio_numpy", ">=", 3.0, "each"),
    # sparse matrices (bench_sparse) against scipy.sparse; SpMV's bytes (values, indices, row pointers, x, y) over
    # its time as a share of the STREAM triad measured right after it (bench_note_triad_fraction_adjacent); the
    # power-law case also reports its share of the gather ceiling (fraction_of_gather, docs/sparse.md)
    ("SpMV CSR float64 1e6 rows (Laplacian, power-law) vs scipy.sparse", sel("sparse", "spmv", "float64"),
     "ratio_numpy", ">=", 2.0, "each"),
    ("SpMV CSR float64 1e6 rows: bandwidth vs the STREAM triad", sel("sparse", "spmv", "float64"),
     "fraction_of_triad", ">=", 0.70, "each"),
    ("SpMM 16 columns vs scipy.sparse", sel("sparse", "spmm16", "float64"), "ratio_numpy", ">=", 2.0, "each"),
    ("SpGEMM of the Laplacian with itself vs scipy.sparse", sel("sparse", "spgemm", "float64"), "ratio_numpy", ">=",
     1.5, "each"),
    ("dense <-> CSR and COO -> CSR vs scipy.sparse", sel("sparse", ("todense", "fromdense", "coo_tocsr"), "float64"),
     "ratio_numpy", ">=", 1.5, "each"),
    # the Python package: one operator through ndgpu._core (bench_python_overhead.py)
    ("x + y, 1-element float32 <= 0.5 us (Python, ndgpu._core)", sel(PY_BENCH, "x + y", "float32", "1", "ext"),
     "median_s", "<=", 0.5e-6, "each"),
]


def _derive(rows):
    """Per-row values the goals need that no single record holds."""
    raw_pinned, cuda_malloc, d2d = {}, {}, {}
    for r in rows:
        if r["op"] == "d2d_copy" and r.get("gbps"):
            d2d[(r["bench"], r["device"])] = r["gbps"]
    # The binaries note the fraction of the D2D copy for operands of 256 MiB
    # and more; a goal's smaller case (add, sum of 1.6e7 float32) gets it here
    # from the copy measured in the same binary.
    frac_goals = [g[1] for g in GPU_GOALS if g[2] == "fraction_of_copy"]
    for r in rows:
        ref = d2d.get((r["bench"], r["device"]))
        if ref and r.get("fraction_of_copy") is None and r.get("gbps") and any(p(r) for p in frac_goals):
            r["fraction_of_copy"] = r["gbps"] / ref
            r["copy_gbps"] = ref
    for r in rows:
        if r["bench"] == "transfer" and r["layout"] == "raw_pinned" and r.get("gbps"):
            raw_pinned[(r["device"], r["op"], r["shape"])] = r
        if r["op"] == "cudaMalloc+cudaFree" and r.get("median_s"):
            cuda_malloc[(r["device"], r["shape"])] = r
    for r in rows:
        ref = raw_pinned.get((r["device"], r["op"], r["shape"]))
        if r["bench"] == "transfer" and ref and r.get("gbps") and r["layout"] != "raw_pinned":
            r["vs_raw_pinned"] = r["gbps"] / ref["gbps"]
            r["raw_pinned_gbps"] = ref["gbps"]
        ref = cuda_malloc.get((r["device"], r["shape"]))
        if r["op"] == "empty+release" and ref:
            r["cuda_malloc_s"] = ref["median_s"]


def fmt_goal_value(metric, v):
    if v is None:
        return "-"
    if metric.startswith("fraction") or metric == "vs_raw_pinned":
        return "%.0f%%" % (100 * v)
    if metric.endswith("_s"):  # median_s, door_cost_s, profiler_cost_s
        return fmt_time(v)
    return "%.2fx" % v


def evaluate_goals(rows, goal_list=None, device="cuda"):
    """One entry per goal line: goal, case, value, target, met (None: not measured / no value), why, detail."""
    _derive(rows)
    cuda = [r for r in rows if r["device"].startswith(device)]
    out = []
    for what, pred, metric, cmp, target, agg in (GPU_GOALS if goal_list is None else goal_list):
        match = [r for r in cuda if pred(r)]
        if agg in ("geomean", "worst"):
            match = [r for r in match if r.get(metric) is not None or metric != "ratio_numpy" or r.get("numpy")]
        if agg == "geomean":
            vals = [r[metric] for r in match if r.get(metric)]
            g = math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None
            out.append({"goal": what, "case": None, "metric": metric, "value": g, "target": target, "cmp": cmp,
                        "met": None if g is None else (g >= target if cmp == ">=" else g <= target),
                        "why": "" if vals else "not measured (no such case in this run)",
                        "detail": "%d cases, %d below %s" % (len(vals), sum(1 for v in vals if v < target), target)})
            continue
        if agg == "largest":
            best = {}
            for r in match:
                k = (r["op"], r["layout"], r["dtype"])
                if k not in best or case_size(r["shape"]) > case_size(best[k]["shape"]):
                    best[k] = r
            match = list(best.values())
        if not match:
            out.append({"goal": what, "case": None, "metric": metric, "value": None, "target": target, "cmp": cmp,
                        "met": None, "why": "not measured (no such case in this run)", "detail": ""})
            continue
        entries = []
        for r in match:
            v = r.get(metric)
            why = ""
            if v is None:
                if r.get("status") != "ok":
                    why = "libndgpu %s: %s" % (r.get("status"), (r.get("message") or "")[:80])
                elif metric == "ratio_cupy":
                    why = "CuPy: %s" % (r.get("cupy_why") or "no value")
                else:
                    why = "no %s in the record" % metric
            met = None if v is None else (v >= target if cmp == ">=" else v <= target)
            detail = []
            if r.get("cupy") and metric != "ratio_cupy":
                detail.append("CuPy %s" % fmt_time(r["cupy"].get("median_s")))
            if metric == "fraction_of_copy" and r.get("copy_gbps"):
                detail.append("%.0f of %.0f GB/s" % (r.get("gbps") or 0, r["copy_gbps"]))
            if metric == "ratio_to_raw" and r.get("raw_median_s"):
                detail.append("%s vs %s raw" % (fmt_time(r.get("median_s")), fmt_time(r["raw_median_s"])))
            if metric == "vs_raw_pinned" and r.get("raw_pinned_gbps"):
                detail.append("%.1f vs %.1f GB/s raw pinned" % (r.get("gbps") or 0, r["raw_pinned_gbps"]))
            if r.get("cuda_malloc_s"):
                detail.append("cudaMalloc+cudaFree %s" % fmt_time(r["cuda_malloc_s"]))
            if metric == "ratio_cupy" and r.get("ratio_cupy"):
                detail.append("%s vs CuPy %s" % (fmt_time(r.get("median_s")), fmt_time((r.get("cupy") or {}).get("median_s"))))
            entries.append({"goal": what, "case": label(r), "metric": metric, "value": v, "target": target,
                            "cmp": cmp, "met": met, "why": why, "detail": ", ".join(detail)})
        if agg == "worst":
            valued = [e for e in entries if e["value"] is not None]
            if valued:
                w = min(valued, key=lambda e: e["value"]) if cmp == ">=" else max(valued, key=lambda e: e["value"])
                w = dict(w)
                nbad = sum(1 for e in valued if e["met"] is False)
                w["detail"] = "; ".join(x for x in (
                    "worst of %d (%d miss%s)%s" % (len(entries), nbad, "" if nbad == 1 else "es",
                                                  "" if len(valued) == len(entries) else
                                                  ", %d without a value" % (len(entries) - len(valued))),
                    w["detail"]) if x)
                entries = [w]
            else:
                entries = entries[:1]
        out += entries
    return out


def print_goals(goals, title="GPU goals (CUDA backend issues; computed from the rows above):"):
    if not goals:
        return
    print()
    print(title)
    for g in goals:
        verdict = "MET" if g["met"] else ("MISSED" if g["met"] is False else "n/a")
        print("  %-6s %-62s %8s (target %s %s)  %s%s%s" % (
            verdict, g["goal"][:62], fmt_goal_value(g["metric"], g["value"]), g["cmp"],
            fmt_goal_value(g["metric"], g["target"]), g["case"] or "", (": " if g["case"] else "") + g["why"],
            ("; " + g["detail"]) if g["detail"] else ""))


def print_table(rows, summary, st, threads, has_gpu):
    np_core = ((st.workers.get("numpy") or {}).get("blas") or {}).get("core", "?")
    our_core = (st.envs[0] if st.envs else {}).get("blas_core", "?")
    our_blas = (st.envs[0] if st.envs else {}).get("blas")
    if our_blas:
        our_core = "%s %s" % (our_blas, our_core)
    our_path = (st.envs[0] if st.envs else {}).get("cpu_path", "?")
    print()
    print("libndgpu vs NumPy%s: ratio = reference median / libndgpu median (> 1: libndgpu faster); threads %d; "
          "BLAS core libndgpu %s, NumPy %s; libndgpu CPU path %s" % ("" if st.cupy_why else " and CuPy", threads,
                                                                  our_core, np_core, our_path))
    hdr = "%-12s %-14s %-17s %-15s %-11s %-7s %10s %11s %10s %8s" % (
        "bench", "op", "dtype", "shape", "layout", "device", "libndgpu", "rate", "NumPy", "ratio")
    if has_gpu:
        hdr += " %10s %8s" % ("CuPy", "ratio")
    print(hdr + "  check")
    for row in rows:
        ours = fmt_time(row["median_s"]) if row["status"] == "ok" else row["status"].upper()
        npm = fmt_time(row["numpy"]["median_s"]) if row["numpy"] else "-"
        rn = "%.2fx" % row["ratio_numpy"] if row["ratio_numpy"] else (row["numpy_why"] or "-")[:40]
        line = "%-12s %-14s %-17s %-15s %-11s %-7s %10s %11s %10s %8s" % (
            row["bench"], row["op"][:14], row["dtype"], row["shape"], row["layout"], row["device"], ours,
            fmt_rate(row), npm, rn)
        if has_gpu:
            cpm = fmt_time(row["cupy"]["median_s"]) if row["cupy"] else "-"
            rc = "%.2fx" % row["ratio_cupy"] if row["ratio_cupy"] else (row["cupy_why"] or "-")[:40]
            line += " %10s %8s" % (cpm, rc)
        chk = []
        if row["status"] != "ok":
            chk.append(row["message"][:160])
        chk += [c for c in row["checks"] if not c.startswith("matches")]
        if not chk:
            chk = ["ok" + (", matches " + "+".join(c.split()[1] for c in row["checks"]) if row["checks"] else "")]
        if row["ratio_to_raw"]:
            chk.append("%.2fx raw %s" % (row["ratio_to_raw"], "cuBLAS" if row["device"].startswith("cuda") else "BLAS"))
        if row["fraction_of_triad"]:
            chk.append("%.0f%% of triad" % (100 * row["fraction_of_triad"]))
        if row.get("fraction_of_gather"):
            chk.append("%.0f%% of gather" % (100 * row["fraction_of_gather"]))
        if row["fraction_of_copy"]:
            chk.append("%.0f%% of D2D copy" % (100 * row["fraction_of_copy"]))
        print(line + "  " + "; ".join(chk))
    print()
    for v in summary.values():
        print("  %-12s %-7s vs %-5s geometric mean ratio %6.2fx over %3d cases (libndgpu faster in %d)"
              % (v["bench"], v["device"], v["vs"], v["geomean_ratio"], v["cases"], v["faster"]))
    if st.numpy_why:
        print("  NumPy column empty: " + st.numpy_why)
    if has_gpu and st.cupy_why:
        print("  CuPy column empty: " + st.cupy_why)


def output_path(args, kind, date):
    name = "%s-%s.json" % (kind, date)
    if not args.out:
        return os.path.join(HERE, "results", name)
    if os.path.isdir(args.out) or args.out.endswith(os.sep):
        os.makedirs(args.out, exist_ok=True)
        return os.path.join(args.out, name)
    # the record is JSON: a name without the extension gets it, so that its
    # .log, .md and .png lie beside "<name>.json", not beside "<name>"
    return args.out if args.out.endswith(".json") else args.out + ".json"


def write_record(st, args, threads, logpath, complete):
    rows, counts = merge(st)
    summary = summarize(rows)
    goals = evaluate_goals(rows) if any(r["device"].startswith("cuda") for r in rows) else []
    cpu_goals = evaluate_goals(rows, CPU_GOALS, "cpu") if any(r["device"] == "cpu" for r in rows) else []
    nproc = os.cpu_count() or 1
    kind = machine_kind(st.envs, nproc)
    date = datetime.date.today().isoformat()
    out_json = output_path(args, kind, date)
    env0 = st.envs[0] if st.envs else {}
    record = {
        "schema": "libndgpu-bench/1",
        "complete": complete,
        "benches_done": st.done,
        "date": date,
        "machine_kind": kind,
        "hostname": platform.node(),
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "quick": args.quick,
        "rounds": args.rounds,
        "threads": threads,
        "nproc": nproc,
        "elapsed_s": round(time.time() - st.t_start, 1),
        "bench_seconds": st.bench_seconds,
        "libndgpu": {"version": env0.get("version"), "build_info": env0.get("build_info"),
                     "blas": env0.get("blas"), "blas_core": env0.get("blas_core"), "cpu_path": env0.get("cpu_path"),
                     "blas_config": env0.get("blas_config"),
                     "env": env0.get("env"), "cpu_model": env0.get("cpu_model"), "devices": env0.get("devices")},
        "numpy": st.workers.get("numpy") or {"missing": st.numpy_why},
        "cupy": st.workers.get("cupy") or {"missing": st.cupy_why},
        "python": platform.python_version(),
        "counts": counts,
        "summary": summary,
        "goals": goals,
        "cpu_goals": cpu_goals,
        "problems": st.problems,
        "cases": rows,
        "raw": {"env": st.envs, "libndgpu": st.ours_all, "numpy": st.np_all, "cupy": st.cp_all},
    }
    tmp = out_json + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, out_json)
    stem = os.path.splitext(out_json)[0]
    try:
        import shutil
        shutil.copyfile(logpath, stem + ".log")
    except OSError:
        pass
    sys.path.insert(0, HERE)
    import plot as plot_mod
    plot_mod.write_markdown(rows, stem + ".md", plot_mod.record_title(record), os.path.basename(out_json))
    return rows, counts, summary, out_json, kind, env0, goals, cpu_goals


def dry_run(args, benches, bindir, log):
    """List each binary's cases (as on a GPU machine), their NumPy/CuPy
    equivalents and the goal cases; measure nothing."""
    sys.path.insert(0, HERE)
    import bench_worker
    problems, planned = [], []
    for bench in benches:
        cmd = bench_cmd(bench, bindir) + ["--list", "--assume-gpu", "--device", args.device]
        if args.quick:
            cmd.append("--quick")
        if args.filter:
            cmd += ["--filter", args.filter]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            problems.append("%s exited with %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-200:]))
            continue
        keys = [k.strip() for k in p.stdout.splitlines() if k.strip().count("/") == 4]  # op names may hold spaces
        print("%s: %d cases (%s)" % (bench, len(keys), " ".join(cmd[1:])))
        for key in keys:
            op, dtype, shape, layout, dev = key.split("/")
            lib = "cupy" if dev.startswith("cuda") else "numpy"
            if bench == PY_BENCH:  # the script times NumPy itself, in the same process
                import bench_python_overhead as bpo
                eq, why = "NumPy %s, timed by bench_python_overhead.py" % (
                    bpo.NUMPY_EQ.get(op, "?") if shape == "1" else "a + b"), ""
            else:
                eq, why = bench_worker.describe_key(key, lib)
            if eq is None and why.startswith("NO "):
                problems.append("%s: %s" % (key, why))
            planned.append({"bench": bench, "op": op, "dtype": dtype, "shape": shape, "layout": layout,
                            "device": dev, "key": key})
            print("  %-48s %s" % (key, eq or why))
    print()
    print("CPU goal cases in this plan:")
    for what, pred, metric, cmp, target, agg in CPU_GOALS:
        hits = [c["key"] for c in planned if c["device"] == "cpu" and pred(c)]
        print("  %-62s %s" % (what[:62], ("%d case(s): %s" % (len(hits), ", ".join(hits[:4]) +
                                                               (" ..." if len(hits) > 4 else "")))
                                if hits else "MISSING"))
        if not hits and args.device in ("cpu", "all") and not args.filter and args.quick:
            problems.append("CPU goal %r has no case" % what)
    print()
    print("GPU goal cases in this plan:")
    for what, pred, metric, cmp, target, agg in GPU_GOALS:
        hits = [c["key"] for c in planned if c["device"].startswith("cuda") and pred(c)]
        print("  %-62s %s" % (what[:62], ("%d case(s): %s" % (len(hits), ", ".join(hits[:4]) +
                                                               (" ..." if len(hits) > 4 else "")))
                                if hits else "MISSING"))
        if not hits and args.device in ("cuda", "all") and not args.filter:
            problems.append("goal %r has no case" % what)
    ncuda = sum(1 for c in planned if c["device"].startswith("cuda"))
    print()
    print("compare: dry run: %d cases (%d on cuda:0), %d problems" % (len(planned), ncuda, len(problems)))
    for pr in problems:
        print("  problem: " + pr)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="quick suite (what `make bench` runs)")
    ap.add_argument("--build", help="build directory: binaries in BUILD/benchmarks, built with "
                    "`make BUILD=BUILD bench-build` when missing")
    ap.add_argument("--bindir", help="where the bench_* binaries are (default build/benchmarks)")
    ap.add_argument("--benches", default=None, help="comma-separated subset of " + ",".join(BENCHES) +
                    " (default all; with --device cuda the groups with GPU goals run first: " +
                    ",".join(CUDA_ORDER) + ")")
    ap.add_argument("--filter", help="passed to the binaries: case key substring")
    ap.add_argument("--device", default="all", choices=["cpu", "cuda", "all"])
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads for both sides (default: os.cpu_count())")
    ap.add_argument("--rounds", type=int, default=2, help="A/B rounds; the best median of each side counts")
    ap.add_argument("--min-time", type=float, default=0.0, help="seconds per case (default 0.2, quick 0.05)")
    ap.add_argument("--out", help="result JSON file, or a directory for <machine>-<date>.json "
                    "(default benchmarks/results/)")
    ap.add_argument("--no-numpy", action="store_true", help="do not run NumPy")
    ap.add_argument("--no-cupy", action="store_true", help="do not run CuPy")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-install", action="store_true", help="never pip install numpy / matplotlib / numexpr")
    ap.add_argument("--verbose", action="store_true", help="also print the binaries' own tables")
    ap.add_argument("--dry-run", action="store_true", help="measure nothing: list the cases (as on a GPU machine), "
                    "their NumPy/CuPy equivalents and the GPU goal cases")
    args = ap.parse_args()

    def log(msg):
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    threads = args.threads or os.cpu_count() or 1
    if args.benches is None:  # on a GPU-only run the goal groups first: a timeout loses the least
        benches = list(CUDA_ORDER if args.device == "cuda" else BENCHES)
    else:
        benches = [b for b in args.benches.split(",") if b]
    for b in benches:
        if b not in BENCHES:
            log("compare: unknown bench %r (choose from %s)" % (b, ", ".join(BENCHES)))
            return 2
    bindir = args.bindir or os.path.join(args.build or os.path.join(ROOT, "build"), "benchmarks")
    missing = [b for b in benches if not bench_available(b, bindir)]
    if missing and args.build:
        log("compare: building the benchmarks: make BUILD=%s bench-build" % args.build)
        subprocess.run(["make", "-C", ROOT, "-j%d" % (os.cpu_count() or 2), "BUILD=" + args.build, "bench-build"])
        missing = [b for b in benches if not bench_available(b, bindir)]
    if missing:
        log("compare: missing binaries in %s: %s (run `make bench-build`)" % (bindir, ", ".join(missing)))
        return 2
    if args.dry_run:
        return dry_run(args, benches, bindir, log)

    st = State()
    # Setup: NumPy (pip install if missing), CuPy (only if importable).
    if args.no_numpy:
        st.numpy_why = "NumPy not run (--no-numpy)"
    else:
        ok, why = ensure_module("numpy", "numpy", not args.no_install, log)
        if not ok:
            st.numpy_why = why
        elif "expr" in benches:
            # the fused expressions' second reference (their *_numexpr rows;
            # without it those rows read n/a)
            ensure_module("numexpr", "numexpr", not args.no_install, log)
        if any(b in benches for b in ("special", "special_gamma", "sparse")):
            # the twins of scipy.special's ufuncs and of scipy.sparse (without
            # SciPy those rows have neither a ratio nor a result check)
            ensure_module("scipy", "scipy", not args.no_install, log)
    if args.no_cupy:
        st.cupy_why = "CuPy not run (--no-cupy)"

    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    tmpdir = tempfile.mkdtemp(prefix="ndgpu-bench-")
    logpath = os.path.join(tmpdir, "run.log")
    logf = open(logpath, "w")

    def on_term(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    import signal
    signal.signal(signal.SIGTERM, on_term)

    # The plan: each binary lists its cases (no measurement), so the run can
    # say how far it is and about how long is left.
    py_env = python_group_env(bindir, log) if PY_BENCH in benches else None
    planned = {}
    for bench in benches:
        cmd = bench_cmd(bench, bindir) + ["--list", "--device", args.device]
        cmd += (["--quick"] if args.quick else []) + (["--filter", args.filter] if args.filter else [])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=dict(os.environ, **(py_env or {})) if bench == PY_BENCH else None)
        planned[bench] = sum(1 for k in p.stdout.split() if k.count("/") == 4) if p.returncode == 0 else 0
    total_cases = sum(planned.values())
    log("compare: %d case groups, %d cases (device %s), %d round(s) of libndgpu then %s each; "
        "a line per group, the table at the end" % (len(benches), total_cases, args.device, args.rounds,
                                                     "NumPy" if not st.numpy_why else "no reference"))

    def progress(bench, t_bench):
        done = sum(planned[b] for b in st.done)
        el = time.time() - st.t_start
        left = (el / done * (total_cases - done)) if done else 0
        log("compare: == %-11s %3d cases in %5.1f s | %d/%d groups, %d/%d cases, %s elapsed, about %s left" % (
            bench, planned[bench], t_bench, len(st.done), len(benches), done, total_cases, fmt_clock(el),
            fmt_clock(left)))

    interrupted = None
    try:
        for bench in benches:
            t_bench = time.time()
            binpath = bench_cmd(bench, bindir)
            for rnd in range(1, args.rounds + 1):
                jpath = os.path.join(tmpdir, "%s-%d.jsonl" % (bench, rnd))
                log("compare: [%s] round %d/%d: libndgpu (%s) at %.1f s" % (
                    bench, rnd, args.rounds, " ".join(binpath), time.time() - st.t_start))
                # the first round verifies every case (reference check and
                # checksum on both sides); the later ones time only
                rc, out, err = run_ours(binpath, args, threads, jpath, logf, verify=rnd == 1,
                                        extra_env=py_env if bench == PY_BENCH else None)
                recs = read_jsonl(jpath)
                if rc not in (0, 1):
                    tail = " | ".join((err or out).strip().splitlines()[-3:])
                    st.problems.append("bench_%s round %d exited with status %d: %s" % (bench, rnd, rc, tail))
                    log("compare: " + st.problems[-1])
                st.add_ours(recs, rnd)
                meas = [r for r in recs if r.get("type") == "measurement"]
                if bench == PY_BENCH:
                    # NumPy was timed in the same process: its twins come with the records
                    if not st.numpy_why:
                        st.add_worker("numpy", {r["key"]: dict(r["numpy"], key=r["key"]) for r in meas
                                                if r.get("numpy")}, rnd)
                        envr = next((r for r in recs if r.get("type") == "env"), {})
                        st.workers.setdefault("numpy", {"version": envr.get("numpy"),
                                                        "note": "timed by bench_python_overhead.py"})
                    continue
                # NumPy runs the CPU cases; a GPU case is compared with the
                # NumPy time of the same CPU case when there is one.
                for kind, want in (("numpy", lambda d: d == "cpu"), ("cupy", lambda d: d.startswith("cuda"))):
                    cases, seen = [], set()
                    for r in meas:
                        if want(r["device"]) and r.get("call") and r["key"] not in seen:
                            seen.add(r["key"])
                            cases.append(dict(r, label=label(r, False)))
                    if not cases:
                        continue
                    if kind == "numpy" and st.numpy_why:
                        continue
                    if kind == "cupy":
                        if st.cupy_why:
                            continue
                        if not st.cupy_checked:  # once per run: importing CuPy takes a second or two
                            st.cupy_checked = True
                            ok, why = module_available_in_subprocess("cupy")
                            if not ok:
                                st.cupy_why = "CuPy not installed (%s)" % why
                                continue
                    log("compare: [%s] round %d/%d: %s (%d cases) at %.1f s" % (
                        bench, rnd, args.rounds, "NumPy" if kind == "numpy" else "CuPy", len(cases),
                        time.time() - st.t_start))
                    meta, res, werr = run_worker(kind, cases, args, threads, tmpdir, "%s-%d" % (bench, rnd),
                                                 verify=rnd == 1)
                    if meta:
                        st.workers[kind] = meta
                    if werr:
                        st.problems.append(werr)
                        log("compare: " + werr)
                    st.add_worker(kind, res, rnd)
            st.done.append(bench)
            st.bench_seconds[bench] = round(time.time() - t_bench, 1)
            progress(bench, time.time() - t_bench)
            logf.flush()
            write_record(st, args, threads, logpath, complete=False)  # a partial record survives a timeout
    except KeyboardInterrupt as e:
        interrupted = str(e) or "interrupted"
        st.problems.append("run interrupted (%s) after %s" % (interrupted, ", ".join(st.done) or "nothing"))
        log("compare: " + st.problems[-1])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    logf.close()
    has_gpu = any(e.get("cuda_devices", 0) > 0 for e in st.envs)
    if not has_gpu and st.cupy_why is None:
        st.cupy_why = "no GPU"

    rows, counts, summary, out_json, kind, env0, goals, cpu_goals = write_record(st, args, threads, logpath,
                                                                      complete=interrupted is None)
    print_table(rows, summary, st, threads, has_gpu)
    print_goals(cpu_goals, "CPU goals (vs NumPy on %s, CPU path %s; computed from the rows above):"
                % (env0.get("cpu_model"), env0.get("cpu_path")))
    print_goals(goals)
    stem = os.path.splitext(out_json)[0]
    print()
    print("compare: wrote %s (+ %s, %s: the summary table)" % (out_json, os.path.basename(stem + ".log"),
                                                               os.path.basename(stem + ".md")))
    if not args.no_plot and interrupted is None:
        title = "libndgpu %s vs NumPy %s%s on %s, %d threads, BLAS core %s, CPU path %s, %s%s" % (
            env0.get("version"), (st.workers.get("numpy") or {}).get("version", "-"),
            (" / CuPy %s" % st.workers["cupy"]["version"]) if "cupy" in st.workers else "", kind, threads,
            env0.get("blas_core"), env0.get("cpu_path"), datetime.date.today().isoformat(),
            " (quick)" if args.quick else "")
        ok, why = ensure_module("matplotlib", "matplotlib", not args.no_install, log)
        if not ok:
            log("compare: no plot: %s" % why)
        else:
            sys.path.insert(0, HERE)
            from plot import plot
            if plot(rows, stem + ".png", title, log):
                print("compare: wrote %s" % (stem + ".png"))
    import shutil
    shutil.rmtree(tmpdir, ignore_errors=True)

    print("compare: %d cases in %s, %d libndgpu failures, %d checksum mismatches, %d inconsistent claims, %d problems"
          % (len(rows), fmt_clock(time.time() - st.t_start), counts["fail"], counts["mismatch"], counts["claim"],
             len(st.problems)))
    for p in st.problems:
        print("  problem: " + p)
    if interrupted:
        return 124
    return 1 if (counts["fail"] or counts["mismatch"] or counts["claim"] or st.problems) else 0


if __name__ == "__main__":
    sys.exit(main())
