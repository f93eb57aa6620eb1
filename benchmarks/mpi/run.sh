#!/usr/bin/env bash
# The MPI benchmark record (make mpi-bench): nd_allreduce against raw
# MPI_Allreduce (benchmarks/mpi/bench_allreduce) and the data-parallel
# scaling table (examples/mpi/scaling, full default sizes), both with
# 2 processes, into
#   benchmarks/results/mpi-<kind>-<YYYY-MM-DD>.json   the record
#   benchmarks/results/mpi-<kind>-<YYYY-MM-DD>.log    the full output
# <kind> as benchmarks/compare.py names machines (machine_kind): the GPU's
# name when the build sees one, else cpu<cores>-<cpu model>[-<CPU path>],
# e.g. cpu2-amd-epyc-avx2.
#
#   bash benchmarks/mpi/run.sh BUILD_DIR
# Environment: MPIRUN (default mpirun), MPIRUN_FLAGS (extra mpirun options;
# --allow-run-as-root --oversubscribe are added when running as root),
# MPI_BENCH_NP (default 2), MPI_TIMEOUT (mpirun --timeout, default 1800 s),
# MPI_BENCH_BTL (--mca btl, default self,vader; empty: Open MPI's choice).
# Run it on an idle machine: the numbers are wall-clock times.
set -u -o pipefail
build=${1:?usage: run.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mpirun=${MPIRUN:-mpirun}
np=${MPI_BENCH_NP:-2}
# --timeout bounds a hang; one host: shared memory and self only (Open MPI's
# TCP and OpenIB components probe interfaces and warn in containers;
# MPI_BENCH_BTL= empty leaves the choice to Open MPI)
flags=(--timeout "${MPI_TIMEOUT:-1800}")
[ -n "${MPI_BENCH_BTL-self,vader}" ] && flags+=(--mca btl "${MPI_BENCH_BTL-self,vader}")
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root --oversubscribe)
# shellcheck disable=SC2206 # the extra flags split on spaces
[ -n "${MPIRUN_FLAGS:-}" ] && flags+=(${MPIRUN_FLAGS})
bench="$build/benchmarks/mpi/bench_allreduce"
scaling="$build/examples/mpi/scaling"
for b in "$bench" "$scaling"; do
  [ -x "$b" ] || { echo "run.sh: $b is missing (make BUILD=$build mpi-build)" >&2; exit 1; }
done
command -v "$mpirun" >/dev/null || { echo "run.sh: $mpirun not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
date=$(date +%F)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "run.sh: load average before the run: $load (run on an idle machine)"

status=0
echo "== $mpirun ${flags[*]} -np $np $bench"
"$mpirun" "${flags[@]}" -np "$np" "$bench" 2>&1 | tee "$tmp/bench.out" || status=1
# the scaling table for three global batches: compute-rich (512 rows: the
# compute halves, 2 processes pay at every size here), the middle (128:
# a crossover in H) and latency-bound (16: the allreduce outweighs the
# compute saved); MPI_SCALING_BATCHES overrides the list
: >"$tmp/scaling.out"
for batch in ${MPI_SCALING_BATCHES:-512 128 16}; do
  echo "== $mpirun ${flags[*]} -np $np $scaling --batch $batch"
  "$mpirun" "${flags[@]}" -np "$np" "$scaling" --batch "$batch" 2>&1 | tee -a "$tmp/scaling.out" || status=1
done

mpi_version=$("$mpirun" --version 2>&1 | head -n 1)
model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
[ -n "$model" ] || model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
cores=$(nproc)

MODEL="$model" CORES="$cores" MPI_VERSION="$mpi_version" DATE="$date" LOAD="$load" STATUS="$status" NP="$np" \
  RESULTS="$root/benchmarks/results" TMPD="$tmp" python3 - <<'EOF' || status=1
import json, os, re, sys

tmp = os.environ["TMPD"]
def lines(name):
    with open(os.path.join(tmp, name), errors="replace") as f:
        return f.read().splitlines()

env, bench = None, []
for l in lines("bench.out"):
    if l.startswith("{"):
        try:
            r = json.loads(l)
        except ValueError:
            continue
        if r.get("type") == "env":
            env = r
        else:
            bench.append(r)
scaling = []
for l in lines("scaling.out"):
    if l.startswith("JSON "):
        try:
            scaling.append(json.loads(l[5:]))
        except ValueError:
            pass
goal = next((l for l in lines("bench.out") if l.startswith("goal ")), None)
# one crossover line per batch, in the order run
batches = [int(m.group(1)) for m in (re.match(r"scaling: global batch (\d+) rows", l) for l in lines("scaling.out")) if m]
cross_lines = [l for l in lines("scaling.out") if re.match(r"scaling: \d+ processes are (slower|faster)", l)]
crossover = {str(b): c for b, c in zip(batches, cross_lines)}

# the machine kind, as benchmarks/compare.py's machine_kind forms it
cores = int(os.environ["CORES"])
model = os.environ["MODEL"] or (env or {}).get("cpu_model") or "unknown"
kind = None
for d in (env or {}).get("devices", []):
    if d.get("device", "").startswith("cuda") and d.get("name"):
        kind = re.sub(r"[^a-z0-9]+", "-", d["name"].lower()).strip("-")
        break
if kind is None:
    cpu = (env or {}).get("cpu_model") or model
    kind = "cpu%d-%s" % (cores, re.sub(r"[^a-z0-9]+", "-", cpu.lower()).strip("-")[:40])
    path = (env or {}).get("cpu_path") or ""
    first = path.split()[0] if path.split() else ""
    if first and first != "avx512":
        kind += "-" + first

rec = {
    "bench": "mpi",
    "machine": {"model": model, "cores": cores, "kind": kind},
    "mpi_version": os.environ["MPI_VERSION"],
    "mpi_library": (env or {}).get("mpi_library"),
    "procs": int(os.environ["NP"]),
    "date": os.environ["DATE"],
    "load_before": os.environ["LOAD"],
    "env": env,
    "complete": os.environ["STATUS"] == "0" and env is not None and bool(bench) and bool(scaling),
    "goal": goal,
    "crossover": crossover,
    "bench_allreduce": bench,
    "scaling": scaling,
}
res = os.environ["RESULTS"]
os.makedirs(res, exist_ok=True)
base = os.path.join(res, "mpi-%s-%s" % (kind, os.environ["DATE"]))
with open(base + ".json", "w") as f:
    json.dump(rec, f, indent=1)
    f.write("\n")
with open(base + ".log", "w") as f:
    for name in ("bench.out", "scaling.out"):
        f.write("\n".join(lines(name)) + "\n")
print("run.sh: record %s.json (%d allreduce measurements, %d scaling rows), log %s.log"
      % (base, len(bench), len(scaling), base))
if goal:
    print("run.sh: " + goal)
for b, c in crossover.items():
    print("run.sh: batch %s: %s" % (b, c))
if not rec["complete"]:
    print("run.sh: the record is incomplete (a run failed)", file=sys.stderr)
    sys.exit(1)
EOF
exit $status
