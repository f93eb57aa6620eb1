#!/usr/bin/env bash
# The GPU check: run on a machine with an NVIDIA GPU in ONE call (< 8 min).
#   here:     bash tools/gpu-deps.sh            (fetch OpenBLAS/Check .debs into .gpu-deps/)
#   device:   run(command="bash tools/gpu-check.sh", carry=[".gpu-deps"], timeout_s=540)
#   then:     copy the record from the returned files into benchmarks/results/ and commit it.
# It builds the library for sm_90 with the CUDA backend, runs the whole
# Check suite (the gpu suite included), runs the GPU suites again under
# compute-sanitizer (memcheck, racecheck, initcheck) with ND_POOL=0, runs the
# GPU benchmarks and the CuPy comparison where they exist, and writes one
# dated record: $OUT/gpu-check-<date>.md (or benchmarks/results/ without $OUT).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-benchmarks/results}
mkdir -p "$out"
day=$(date -u +%Y-%m-%d)
rec="$out/gpu-check-$day.md"
log="$out/gpu-check-$day.log"
: >"$log"
say() { echo "$*" | tee -a "$rec"; }
: >"$rec"

# 1. carried Debian libraries (no apt on the GPU machine)
if [ -d .gpu-deps ] && ls .gpu-deps/*.deb >/dev/null 2>&1; then
  mkdir -p .gpu-deps/root
  for f in .gpu-deps/*.deb; do dpkg -x "$f" .gpu-deps/root; done
  r=$PWD/.gpu-deps/root
  ob=$r/usr/lib/x86_64-linux-gnu/openblas-pthread
  ln -sf libopenblas.so.0 "$ob/libopenblas.so" 2>/dev/null || true
  export CPATH="$r/usr/include:$r/usr/include/x86_64-linux-gnu/openblas-pthread:$r/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$ob:$r/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$ob:$r/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PKG_CONFIG_PATH="$r/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi
export PATH="/usr/local/cuda/bin:$PATH"

say "# libndgpu GPU check, $day"
say ""
say "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')"
say "- nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -n 1)"
say "- nvcc: $(nvcc --version 2>&1 | tail -n 1)"
say ""

# Every step runs under a timeout taken from one overall budget, so the
# record is always written inside the device call (GPU_CHECK_BUDGET seconds,
# default 480 of the 540 the call is given).
t_start=$(date +%s)
budget=${GPU_CHECK_BUDGET:-480}
left() { echo $(( budget - ($(date +%s) - t_start) )); }
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo $(( l > 5 ? l : 5 )) || echo "$1"; }

# 2. build for sm_90 (CHECK_LIBS/BLAS_LIBS fall back to plain -l flags without pkg-config)
t0=$(date +%s)
if timeout "$(cap 300)" make -j16 BUILD=build-gpu CUDA=1 CUDA_ARCH=90 CUDA_PTX=0 lib build-gpu/tests/ndgpu_tests >>"$log" 2>&1; then
  say "- build (sm_90): ok in $(( $(date +%s) - t0 )) s"
else
  say "- build (sm_90): FAILED after $(( $(date +%s) - t0 )) s (see the log)"; tail -n 40 "$log"; exit 1
fi

# 3. the whole suite on the GPU machine (the elementwise harness runs every
#    op x dtype x layout on cuda:0 here; the gpu_* suites compare with the CPU)
t0=$(date +%s)
timeout "$(cap 200)" build-gpu/tests/ndgpu_tests >"$out/tests-$day.txt" 2>&1
rc=$?
say "- test suite: $(grep -E '^[0-9]+%: Checks' "$out/tests-$day.txt" | tail -n 1) (exit $rc, $(( $(date +%s) - t0 )) s)"
grep -E ':F:|:E:|SKIPPED|MISSING|harness:|coverage:' "$out/tests-$day.txt" | head -n 40 | sed 's/^/    /' | tee -a "$rec"

# 4. compute-sanitizer on the GPU suites, every allocation visible (ND_POOL=0):
#    memcheck on each suite, racecheck/initcheck on the kernels with shared
#    memory and temporaries (reductions, matmul) and the runtime suite
if command -v compute-sanitizer >/dev/null; then
  san() { # tool suite cap
    local t0 src; t0=$(date +%s)
    if [ "$(left)" -lt 60 ]; then say "- compute-sanitizer $1 on $2: SKIPPED (budget)"; return; fi
    ND_POOL=0 CK_FORK=no CK_RUN_SUITE="$2" timeout "$(cap "$3")" compute-sanitizer --tool "$1" --error-exitcode 99 \
      build-gpu/tests/ndgpu_tests >"$out/sanitizer-$1-$2.txt" 2>&1
    src=$?
    say "- compute-sanitizer $1 on $2: exit $src, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$1-$2.txt" | tail -n 1); $(grep -E '^[0-9]+%: Checks' "$out/sanitizer-$1-$2.txt" | tail -n 1) ($(( $(date +%s) - t0 )) s)"
  }
  for suite in gpu gpu_ew gpu_reduce gpu_linalg gpu_random; do san memcheck "$suite" 60; done
  san racecheck gpu_reduce 45
  san racecheck gpu_linalg 45
  san initcheck gpu_reduce 40
  san initcheck gpu 40
else
  say "- compute-sanitizer: not found"
fi

# 5. GPU benchmarks and the CuPy comparison (quick suite, one round; about
#    150 s on an H200: see benchmarks/README.md). compare.py runs the cheap
#    goal groups first on cuda and, killed by the timeout, still writes its
#    partial record and prints the table and the goals of what finished.
if [ -f benchmarks/compare.py ] && [ "$(left)" -gt 40 ]; then
  t0=$(date +%s)
  timeout "$(cap 120)" make -j16 BUILD=build-gpu CUDA=1 CUDA_ARCH=90 CUDA_PTX=0 bench-build >>"$log" 2>&1
  PYTHONUNBUFFERED=1 timeout "$(cap 400)" python3 benchmarks/compare.py --quick --rounds 1 --device cuda --bindir build-gpu/benchmarks \
    --out "$out" --no-plot >"$out/bench-$day.txt" 2>&1
  say "- benchmarks + CuPy comparison: exit $? ($(( $(date +%s) - t0 )) s); goals and summary:"
  sed -n '/^GPU goals/,/^$/p' "$out/bench-$day.txt" | sed 's/^/    /' | tee -a "$rec"
  grep -E '^  [a-z]+ +cuda:0 +vs|^compare: [0-9]+ cases|problem:|CuPy column empty' "$out/bench-$day.txt" | head -n 30 \
    | sed 's/^/    /' | tee -a "$rec"
else
  say "- benchmarks: SKIPPED (budget)"
fi
say ""
say "Logs: gpu-check-$day.log, tests-$day.txt, sanitizer-*.txt, bench-$day.txt"
