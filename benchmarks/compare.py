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
BENCHES = ["elementwise", "reduce", "matmul", "copy", "overhead", "transfer"]


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


def run_ours(binpath, args, threads, json_path, logf):
    cmd = [binpath, "--json", json_path, "--threads", str(threads), "--device", args.device]
    if args.quick:
        cmd.append("--quick")
    if args.filter:
        cmd += ["--filter", args.filter]
    if args.min_time:
        cmd += ["--min-time", str(args.min_time)]
    # OMP_WAIT_POLICY=passive: the benchmark harness (input generation,
    # reference checks, the triad) uses OpenMP; the library does not (it has
    # its own thread pool). Without it the harness's idle OpenMP threads spin
    # for ~17 ms after each region and steal the cores the timed code runs on.
    env = dict(os.environ, ND_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
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


def run_worker(kind, cases, args, threads, tmpdir, tag):
    cpath = os.path.join(tmpdir, "%s-%s-cases.json" % (kind, tag))
    rpath = os.path.join(tmpdir, "%s-%s-result.jsonl" % (kind, tag))
    with open(cpath, "w") as f:
        json.dump(cases, f)
    min_time = args.min_time or (0.05 if args.quick else 0.2)
    cmd = [sys.executable, os.path.join(HERE, "bench_worker.py"), "--lib", kind, "--cases", cpath, "--result", rpath,
           "--min-time", str(min_time)]
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
    return {"float64": 1e-9, "float32": 2e-5, "float16": 1e-4}.get(dt, 1e-6)


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
    if rec.get("call") and rec["call"].get("fn") not in ("empty",) and not rec.get("checksum"):
        bad.append("no checksum of the result")
    return bad


def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-6:
        return "%.0f ns" % (s * 1e9)
    if s < 1e-3:
        return "%.2f us" % (s * 1e6)
    if s < 1:
        return "%.2f ms" % (s * 1e3)
    return "%.3f s" % s


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
    cpu = "unknown"
    for e in envs:
        cpu = e.get("cpu_model") or cpu
    return "cpu%d-%s" % (nproc, re.sub(r"[^a-z0-9]+", "-", cpu.lower()).strip("-")[:40])


class State:
    """Everything measured so far (so a partial record can be written)."""

    def __init__(self):
        self.ours_best, self.ours_all, self.envs, self.workers = {}, [], [], {}
        self.np_best, self.cp_best, self.np_all, self.cp_all = {}, {}, [], []
        self.problems = []
        self.numpy_why = self.cupy_why = None
        self.t_start = time.time()
        self.done = []

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
            cur = self.ours_best.get(k)
            if cur is None:
                self.ours_best[k] = r
            elif r.get("status") != "ok":
                if cur.get("status") == "ok":  # a failure in any round counts
                    self.ours_best[k] = r
            elif cur.get("status") == "ok":
                self.ours_best[k] = better(cur, r)

    def add_worker(self, kind, res, rnd):
        best, allr = (self.np_best, self.np_all) if kind == "numpy" else (self.cp_best, self.cp_all)
        for k, v in res.items():
            v["round"] = rnd
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
               "fraction_of_triad": r.get("fraction_of_triad"), "ceiling": bool(r.get("ceiling")),
               "round": r.get("round"), "ratio_numpy": None, "ratio_cupy": None, "numpy": None, "cupy": None,
               "numpy_why": None, "cupy_why": None, "checks": []}
        if r.get("status") in ("wrong", "error"):
            counts["fail"] += 1
        claims = verify_claims(r)
        if claims:
            counts["claim"] += 1
            row["checks"] += ["claim: " + c for c in claims]
        for side, best, why_global in (("numpy", st.np_best, st.numpy_why), ("cupy", st.cp_best, st.cupy_why)):
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
                cs, rc = r.get("checksum"), ref.get("checksum")
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


def print_table(rows, summary, st, threads, has_gpu):
    np_core = ((st.workers.get("numpy") or {}).get("blas") or {}).get("core", "?")
    our_core = (st.envs[0] if st.envs else {}).get("blas_core", "?")
    print()
    print("libndgpu vs NumPy%s: ratio = reference median / libndgpu median (> 1: libndgpu faster); threads %d; "
          "BLAS core libndgpu %s, NumPy %s" % ("" if st.cupy_why else " and CuPy", threads, our_core, np_core))
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
            chk.append("%.2fx raw BLAS" % row["ratio_to_raw"])
        if row["fraction_of_triad"]:
            chk.append("%.0f%% of triad" % (100 * row["fraction_of_triad"]))
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
    return args.out


def write_record(st, args, threads, logpath, complete):
    rows, counts = merge(st)
    summary = summarize(rows)
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
        "libndgpu": {"version": env0.get("version"), "build_info": env0.get("build_info"),
                     "blas_core": env0.get("blas_core"), "blas_config": env0.get("blas_config"),
                     "env": env0.get("env"), "cpu_model": env0.get("cpu_model"), "devices": env0.get("devices")},
        "numpy": st.workers.get("numpy") or {"missing": st.numpy_why},
        "cupy": st.workers.get("cupy") or {"missing": st.cupy_why},
        "python": platform.python_version(),
        "counts": counts,
        "summary": summary,
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
    return rows, counts, summary, out_json, kind, env0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="quick suite (what `make bench` runs)")
    ap.add_argument("--build", help="build directory: binaries in BUILD/benchmarks, built with "
                    "`make BUILD=BUILD bench-build` when missing")
    ap.add_argument("--bindir", help="where the bench_* binaries are (default build/benchmarks)")
    ap.add_argument("--benches", default=",".join(BENCHES), help="comma-separated subset of " + ",".join(BENCHES))
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
    ap.add_argument("--no-install", action="store_true", help="never pip install numpy / matplotlib")
    ap.add_argument("--verbose", action="store_true", help="also print the binaries' own tables")
    args = ap.parse_args()

    def log(msg):
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    threads = args.threads or os.cpu_count() or 1
    benches = [b for b in args.benches.split(",") if b]
    for b in benches:
        if b not in BENCHES:
            log("compare: unknown bench %r (choose from %s)" % (b, ", ".join(BENCHES)))
            return 2
    bindir = args.bindir or os.path.join(args.build or os.path.join(ROOT, "build"), "benchmarks")
    missing = [b for b in benches if not os.access(os.path.join(bindir, "bench_" + b), os.X_OK)]
    if missing and args.build:
        log("compare: building the benchmarks: make BUILD=%s bench-build" % args.build)
        subprocess.run(["make", "-C", ROOT, "-j%d" % (os.cpu_count() or 2), "BUILD=" + args.build, "bench-build"])
        missing = [b for b in benches if not os.access(os.path.join(bindir, "bench_" + b), os.X_OK)]
    if missing:
        log("compare: missing binaries in %s: %s (run `make bench-build`)" % (bindir, ", ".join(missing)))
        return 2

    st = State()
    # Setup: NumPy (pip install if missing), CuPy (only if importable).
    if args.no_numpy:
        st.numpy_why = "NumPy not run (--no-numpy)"
    else:
        ok, why = ensure_module("numpy", "numpy", not args.no_install, log)
        if not ok:
            st.numpy_why = why
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

    interrupted = None
    try:
        for bench in benches:
            binpath = os.path.join(bindir, "bench_" + bench)
            for rnd in range(1, args.rounds + 1):
                jpath = os.path.join(tmpdir, "%s-%d.jsonl" % (bench, rnd))
                log("compare: [%s] round %d/%d: libndgpu (%s)" % (bench, rnd, args.rounds, binpath))
                rc, out, err = run_ours(binpath, args, threads, jpath, logf)
                recs = read_jsonl(jpath)
                if rc not in (0, 1):
                    tail = " | ".join((err or out).strip().splitlines()[-3:])
                    st.problems.append("bench_%s round %d exited with status %d: %s" % (bench, rnd, rc, tail))
                    log("compare: " + st.problems[-1])
                st.add_ours(recs, rnd)
                meas = [r for r in recs if r.get("type") == "measurement"]
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
                        ok, why = module_available_in_subprocess("cupy")
                        if not ok:
                            st.cupy_why = "CuPy not installed (%s)" % why
                            continue
                    log("compare: [%s] round %d/%d: %s (%d cases)" % (bench, rnd, args.rounds,
                                                                      "NumPy" if kind == "numpy" else "CuPy",
                                                                      len(cases)))
                    meta, res, werr = run_worker(kind, cases, args, threads, tmpdir, "%s-%d" % (bench, rnd))
                    if meta:
                        st.workers[kind] = meta
                    if werr:
                        st.problems.append(werr)
                        log("compare: " + werr)
                    st.add_worker(kind, res, rnd)
            st.done.append(bench)
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

    rows, counts, summary, out_json, kind, env0 = write_record(st, args, threads, logpath,
                                                               complete=interrupted is None)
    print_table(rows, summary, st, threads, has_gpu)
    stem = os.path.splitext(out_json)[0]
    print()
    print("compare: wrote %s (+ %s)" % (out_json, os.path.basename(stem + ".log")))
    if not args.no_plot and interrupted is None:
        title = "libndgpu %s vs NumPy %s%s on %s, %d threads, BLAS core %s, %s%s" % (
            env0.get("version"), (st.workers.get("numpy") or {}).get("version", "-"),
            (" / CuPy %s" % st.workers["cupy"]["version"]) if "cupy" in st.workers else "", kind, threads,
            env0.get("blas_core"), datetime.date.today().isoformat(), " (quick)" if args.quick else "")
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

    print("compare: %d cases, %d libndgpu failures, %d checksum mismatches, %d inconsistent claims, %d problems"
          % (len(rows), counts["fail"], counts["mismatch"], counts["claim"], len(st.problems)))
    for p in st.problems:
        print("  problem: " + p)
    if interrupted:
        return 124
    return 1 if (counts["fail"] or counts["mismatch"] or counts["claim"] or st.problems) else 0


if __name__ == "__main__":
    sys.exit(main())
