#!/usr/bin/env bash
# The GPU check: run on a machine with an NVIDIA GPU in ONE call (< 8 min).
#   here:     make gpu-deps                     (OpenBLAS/Check .debs and the commit id into .gpu-deps/)
#   device:   run(command="bash tools/gpu-check.sh", carry=[".gpu-deps"], timeout_s=540)
#   then:     copy the record from the returned files into benchmarks/results/ and commit it.
# It builds the library for sm_90 with the CUDA backend, runs the GPU suites
# and the elementwise harness on cuda:0 (not the CPU-heavy suites: `make
# test` covers those everywhere), runs the GPU suites again under
# compute-sanitizer (memcheck, racecheck, initcheck) with ND_POOL=0 and
# without the very large cases (ND_TEST_LARGE=0), runs the GPU benchmarks and
# the CuPy comparison, and writes one dated record with each step's time:
# $OUT/gpu-check-<date>.md (or benchmarks/results/ without $OUT).
#
# GPU_CHECK_EMU=1 (make gpu-check-emu): the same steps against the emulated
# GPU (build-emu, CUDA_EMU=1): the sanitizer steps run their suites without
# compute-sanitizer (there is none; `make emu-asan` is the memcheck there) and
# the benchmark step runs a few cases only. It proves the script, not the GPU.
#
# Check forks a child per test; the runner never initialises CUDA in the
# parent (tests/test_main.c: the device count comes from a forked probe), so
# the forked children can use the GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
emu=${GPU_CHECK_EMU:-0}
out=${OUT:-benchmarks/results}
[ "$emu" = 1 ] && out=${OUT:-${BUILD:-build-emu}/gpu-check}
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
bdir=${BUILD:-build-gpu}
[ "$emu" = 1 ] && bdir=${BUILD:-build-emu}
# The commit: .git does not travel to the GPU machine, so `make gpu-deps`
# writes it into .gpu-deps/COMMIT (carried); GPU_CHECK_COMMIT overrides.
commit=${GPU_CHECK_COMMIT:-}
[ -z "$commit" ] && commit=$({ git rev-parse --short HEAD 2>/dev/null && { git diff --quiet 2>/dev/null || printf ' (+ uncommitted changes)'; }; } | tr -d '\n')
[ -z "$commit" ] && [ -f .gpu-deps/COMMIT ] && commit="$(cat .gpu-deps/COMMIT) (from .gpu-deps/COMMIT)"
say "- commit: ${commit:-unknown}"
if [ "$emu" = 1 ]; then
  say "- device: the EMULATED GPU (HIP-CPU at ${HIPCPU:-../shared/hip-cpu}, tests/emu): a dry run of this script, not a GPU measurement"
  say "- cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
else
  say "- nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -n 1)"
  say "- nvcc: $(nvcc --version 2>&1 | tail -n 1)"
fi
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
if [ "$emu" = 1 ]; then bflags=(BUILD="$bdir" CUDA_EMU=1); jobs=$(nproc); else bflags=(BUILD="$bdir" CUDA=1 CUDA_ARCH=90 CUDA_PTX=0); jobs=16; fi
if timeout "$(cap 300)" make -j"$jobs" "${bflags[@]}" lib "$bdir/tests/ndgpu_tests" "$bdir/examples/profile_training" "$bdir/examples/train_mlp_amp" "$bdir/ndgpu-info" >>"$log" 2>&1; then
  say "- build ($([ "$emu" = 1 ] && echo emulated || echo sm_90)): ok in $(( $(date +%s) - t0 )) s"
else
  say "- build: FAILED after $(( $(date +%s) - t0 )) s (see the log)"; tail -n 40 "$log"; exit 1
fi

# 3. the GPU suites and the elementwise harness (every op x dtype x layout on
#    cuda:0 against the CPU reference), one Check run per suite
t0=$(date +%s)
: >"$out/tests-$day.txt"
suites=(gpu gpu_warp gpu_streams gpu_ew gpu_reduce gpu_linalg gpu_random profiler profiler_ops softmax amp matmul_half complex fft la_slot linalg_decomp linalg_norm elementwise:harness)
# The emulated dry run proves the script, not the kernels: `make emu-test`
# has just run every suite on the emulated device, so here a few short ones
# (small cases only) stand for the list (CI time: the whole list took ~330 s).
[ "$emu" = 1 ] && suites=(gpu gpu_warp softmax complex)
for suite in "${suites[@]}"; do
  s1=$(date +%s)
  if [ "$(left)" -lt 30 ]; then say "- suite $suite: SKIPPED (budget)"; continue; fi
  case $suite in *:*) env_case=(CK_RUN_SUITE="${suite%%:*}" CK_RUN_CASE="${suite##*:}");; *) env_case=(CK_RUN_SUITE="$suite");; esac
  [ "$emu" = 1 ] && env_case+=(ND_TEST_LARGE=0)
  env "${env_case[@]}" timeout "$(cap 240)" "$bdir/tests/ndgpu_tests" >"$out/tests-$suite-$day.txt" 2>&1
  rc=$?
  cat "$out/tests-$suite-$day.txt" >>"$out/tests-$day.txt"
  summary=$(grep -E '^[0-9]+%: Checks' "$out/tests-$suite-$day.txt" | tail -n 1)
  say "- suite $suite: ${summary:-no such suite in this build} (exit $rc, $(( $(date +%s) - s1 )) s)"
  grep -E ':F:|:E:|SKIPPED|MISSING|harness:' "$out/tests-$suite-$day.txt" | head -n 12 | sed 's/^/    /' | tee -a "$rec"
done
say "- GPU suites in all: $(( $(date +%s) - t0 )) s"

# 3a. the live monitor through the driver's NVML: three samples, and JSON
if [ -x "$bdir/ndgpu-info" ] && [ "$(left)" -gt 30 ]; then
  timeout "$(cap 20)" "$bdir/ndgpu-info" --watch 0.5 --count 3 >"$out/watch-$day.txt" 2>&1
  rc=$?
  timeout "$(cap 10)" "$bdir/ndgpu-info" --watch 0.5 --count 1 --json >"$out/watch-$day.jsonl" 2>&1
  say "- ndgpu-info --watch: exit $rc, --json exit $?; its last sample:"
  awk '/: sample 3,/{p=1} p' "$out/watch-$day.txt" | head -n 20 | sed 's/^/    /' | tee -a "$rec"
fi

# 3b. the profiler on the GPU: a few training steps profiled on cuda:0 (device
#     time from CUDA events), the table and the trace kept with the record
if [ -x "$bdir/examples/profile_training" ] && [ "$(left)" -gt 30 ]; then
  s1=$(date +%s)
  ND_DEVICE=cuda:0 timeout "$(cap 60)" "$bdir/examples/profile_training" "$out/profile-trace-$day.json" \
    "$out/profile-summary-$day.json" >"$out/profile-$day.txt" 2>&1
  rc=$?
  say "- profiler example on cuda:0: exit $rc ($(( $(date +%s) - s1 )) s); its table:"
  sed -n '1,24p' "$out/profile-$day.txt" | sed 's/^/    /' | tee -a "$rec"
  if command -v python3 >/dev/null && [ -f tests/check_trace.py ]; then
    python3 tests/check_trace.py "$out/profile-trace-$day.json" "$out/profile-summary-$day.json" 2>&1 | tail -n 3 \
      | sed 's/^/    trace: /' | tee -a "$rec"
  fi
fi

# 3c. mixed precision on the GPU (issue 15): the MLP trained in float32, in
#     float16 with dynamic loss scaling (nd_grad_scaler) and with gradient
#     accumulation; it checks its own claims (losses fall, accuracy within
#     1 point, peak memory <= 0.7x float32) and prints the batch-size sweep
if [ -x "$bdir/examples/train_mlp_amp" ] && [ "$(left)" -gt 40 ]; then
  s1=$(date +%s)
  amp_args=(--device cuda)
  [ "$emu" = 1 ] && amp_args+=(--small) # the full sizes take minutes on the emulated device
  timeout "$(cap 90)" "$bdir/examples/train_mlp_amp" "${amp_args[@]}" >"$out/amp-$day.txt" 2>&1
  rc=$?
  say "- mixed-precision example on cuda:0: exit $rc ($(( $(date +%s) - s1 )) s); its summary:"
  tail -n 24 "$out/amp-$day.txt" | sed 's/^/    /' | tee -a "$rec"
fi

# 3d. collectives on the GPU (issue 16): libndgpu_mpi's tests with one rank on
#     cuda:0 (NCCL works with one rank on one GPU: transport "nccl" when
#     libnccl.so.2 loads, else "staged"), and the data-parallel example on
#     the GPU. Needs Open MPI (mpicc, mpirun) on the machine.
if command -v mpicc >/dev/null && command -v mpirun >/dev/null && [ "$(left)" -gt 60 ]; then
  s1=$(date +%s)
  mflags=(--oversubscribe --mca btl self,vader); [ "$(id -u)" -eq 0 ] && mflags+=(--allow-run-as-root)
  if timeout "$(cap 120)" make -j"$jobs" "${bflags[@]}" MPI=1 mpi-build >>"$log" 2>&1; then
    ND_DEVICE=cuda:0 timeout "$(cap 120)" mpirun "${mflags[@]}" -x ND_DEVICE -np 1 "$bdir/tests/mpi/ndgpu_mpi_tests" \
      >"$out/mpi-$day.txt" 2>&1
    rc=$?
    say "- MPI/NCCL collectives on cuda:0 (1 rank): exit $rc, $(grep -E 'GPU transport' "$out/mpi-$day.txt" | head -n 1); $(grep -E '^[0-9]+%: Checks' "$out/mpi-$day.txt" | tail -n 1) ($(( $(date +%s) - s1 )) s)"
    grep -E ':F:|:E:' "$out/mpi-$day.txt" | head -n 8 | sed 's/^/    /' | tee -a "$rec"
    ND_DEVICE=cuda:0 timeout "$(cap 60)" mpirun "${mflags[@]}" -x ND_DEVICE -np 1 "$bdir/examples/mpi/data_parallel" --device cuda \
      >>"$out/mpi-$day.txt" 2>&1
    say "- examples/mpi/data_parallel --device cuda (1 rank): exit $?, $(grep -E 'data_parallel: ' "$out/mpi-$day.txt" | tail -n 1)"
  else
    say "- MPI/NCCL collectives: build FAILED (see the log)"
  fi
else
  if command -v mpicc >/dev/null; then say "- MPI/NCCL collectives: SKIPPED (budget)"
  else say "- MPI/NCCL collectives: SKIPPED (no Open MPI (mpicc, mpirun) on this machine; the NCCL path is tested through libndgpu_mpi)"; fi
fi

# 4. compute-sanitizer on the GPU suites, every allocation visible (ND_POOL=0):
#    memcheck on each suite, racecheck/initcheck on the kernels with shared
#    memory and temporaries (reductions, matmul) and the runtime suite
if [ "$emu" = 1 ] || command -v compute-sanitizer >/dev/null; then
  san() { # tool suite cap
    local t0 src wrap; t0=$(date +%s)
    if [ "$(left)" -lt 60 ]; then say "- compute-sanitizer $1 on $2: SKIPPED (budget)"; return; fi
    if [ "$emu" = 1 ]; then wrap=(env); else wrap=(compute-sanitizer --tool "$1" --error-exitcode 99); fi
    ND_POOL=0 ND_TEST_LARGE=0 CK_FORK=no CK_RUN_SUITE="$2" timeout "$(cap "$3")" "${wrap[@]}" \
      "$bdir/tests/ndgpu_tests" >"$out/sanitizer-$1-$2.txt" 2>&1
    src=$?
    say "- compute-sanitizer $1 on $2$([ "$emu" = 1 ] && echo ' (emulated: the suite without the sanitizer)'): exit $src, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$1-$2.txt" | tail -n 1); $(grep -E '^[0-9]+%: Checks' "$out/sanitizer-$1-$2.txt" | tail -n 1) ($(( $(date +%s) - t0 )) s)"
  }
  if [ "$emu" = 1 ]; then # the long suites ran in step 3 already; keep the dry run short
    for suite in gpu gpu_warp gpu_random; do san memcheck "$suite" 45; done
    say "- compute-sanitizer memcheck on gpu_ew, gpu_reduce, gpu_linalg: SKIPPED (emulated: make emu-test ran them; make emu-asan is the memcheck here)"
    san racecheck gpu_linalg 40
    san initcheck gpu 30
  else
  for suite in gpu gpu_warp gpu_streams gpu_ew gpu_reduce gpu_linalg gpu_random; do san memcheck "$suite" 45; done
  san racecheck gpu_reduce 40
  san racecheck gpu_linalg 40
  san racecheck softmax 40
  san initcheck gpu_reduce 30
  san initcheck gpu 30
  fi
else
  say "- compute-sanitizer: not found"
fi

# 5. GPU benchmarks and the CuPy comparison (quick suite, one round; about
#    150 s on an H200: see benchmarks/README.md). compare.py runs the cheap
#    goal groups first on cuda and, killed by the timeout, still writes its
#    partial record and prints the table and the goals of what finished.
if [ -f benchmarks/compare.py ] && [ "$(left)" -gt 40 ]; then
  t0=$(date +%s)
  timeout "$(cap 120)" make -j"$jobs" "${bflags[@]}" bench-build >>"$log" 2>&1
  extra=()
  [ "$emu" = 1 ] && extra=(--filter "add" --benches elementwise --no-numpy --no-cupy --min-time 0.01)
  PYTHONUNBUFFERED=1 timeout "$(cap 400)" python3 benchmarks/compare.py --quick --rounds 1 --device cuda --bindir "$bdir/benchmarks" \
    --out "$out" --no-plot "${extra[@]}" >"$out/bench-$day.txt" 2>&1
  say "- benchmarks + CuPy comparison: exit $? ($(( $(date +%s) - t0 )) s); goals and summary:"
  sed -n '/^GPU goals/,/^$/p' "$out/bench-$day.txt" | sed 's/^/    /' | tee -a "$rec"
  grep -E '^  [a-z]+ +cuda:0 +vs|^compare: [0-9]+ cases|problem:|CuPy column empty' "$out/bench-$day.txt" | head -n 30 \
    | sed 's/^/    /' | tee -a "$rec"
else
  say "- benchmarks: SKIPPED (budget)"
fi
say "- total: $(( $(date +%s) - t_start )) s of the ${budget} s budget"
say ""
say "Logs: gpu-check-$day.log, tests-$day.txt (tests-<suite>-$day.txt), sanitizer-*.txt, bench-$day.txt"
