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

# 2. build for sm_90 (CHECK_LIBS/BLAS_LIBS fall back to plain -l flags without pkg-config)
t0=$(date +%s)
if make -j16 BUILD=build-gpu CUDA=1 CUDA_ARCH=90 lib build-gpu/tests/ndgpu_tests >>"$log" 2>&1; then
  say "- build (sm_90): ok in $(( $(date +%s) - t0 )) s"
else
  say "- build (sm_90): FAILED (see the log)"; tail -n 40 "$log"; exit 1
fi

# 3. the whole suite on the GPU machine
t0=$(date +%s)
build-gpu/tests/ndgpu_tests >"$out/tests-$day.txt" 2>&1
rc=$?
say "- test suite: $(grep -E '^[0-9]+%: Checks' "$out/tests-$day.txt" | tail -n 1) (exit $rc, $(( $(date +%s) - t0 )) s)"
grep -E ':F:|:E:|SKIPPED' "$out/tests-$day.txt" | head -n 30 | sed 's/^/    /' | tee -a "$rec"

# 4. compute-sanitizer on the GPU suites, every allocation visible (ND_POOL=0)
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck initcheck; do
    t0=$(date +%s)
    ND_POOL=0 CK_FORK=no CK_RUN_SUITE=gpu timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      build-gpu/tests/ndgpu_tests >"$out/sanitizer-$tool.txt" 2>&1
    src=$?
    say "- compute-sanitizer $tool: exit $src, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.txt" | tail -n 1) ($(( $(date +%s) - t0 )) s)"
  done
else
  say "- compute-sanitizer: not found"
fi

# 5. GPU benchmarks and the CuPy comparison, where they exist
if [ -f benchmarks/compare.py ]; then
  t0=$(date +%s)
  make -j16 BUILD=build-gpu CUDA=1 CUDA_ARCH=90 bench-build >>"$log" 2>&1
  PYTHONUNBUFFERED=1 timeout 200 python3 benchmarks/compare.py --quick --rounds 1 --device cuda --build build-gpu \
    --out "$out" >"$out/bench-$day.txt" 2>&1
  say "- benchmarks + CuPy comparison: exit $? ($(( $(date +%s) - t0 )) s); table:"
  tail -n 40 "$out/bench-$day.txt" | sed 's/^/    /' | tee -a "$rec"
fi
say ""
say "Logs: gpu-check-$day.log, tests-$day.txt, sanitizer-*.txt, bench-$day.txt"
