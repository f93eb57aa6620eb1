#!/usr/bin/env bash
# The GPU check: binaries built and packed here (`make gpu-prep`, the pack
# gpu-pack/), run on a GPU machine in two calls of at most ~5 minutes each,
# each one useful alone (docs/gpu-check.md gives the exact device-tool
# commands; `make gpu-prep` prints them):
#
#   bash tools/gpu-check.sh 1   ndgpu-info (stops with FAILED when it sees no
#                               CUDA device), then the GPU suites: the test
#                               cases that run on cuda:0, several suites at
#                               once; then ndgpu-info --watch and the GPU examples
#   bash tools/gpu-check.sh 2   ndgpu-info as above, the quick GPU benchmark
#                               with CuPy beside it (compare.py), then
#                               compute-sanitizer (memcheck, racecheck,
#                               synccheck) on the suites that launch kernels
#
# Nothing is built here in the normal path. Each call leaves at most three
# files in $OUT (only 8 come back from the GPU machine):
#   gpu-check-<date>-call<N>.md            the record (result, device, every step)
#   gpu-check-<date>-call<N>-logs.tar.gz   every log of the call
#   <machine>-<date>.json                  call 2: the benchmark record (compare.py)
# Without $OUT they go to benchmarks/results/gpu-check/.
#
# Exit status: 0 every step passed; 1 a step failed or did not run (budget);
# 2 the call could not start: no pack, a library missing, or no usable CUDA
# device (the record then says FAILED and no suite runs, so a machine whose
# CUDA is unusable never yields a record of SKIPPED suites).
#
# Environment:
#   GPU_CHECK_PACK=dir     the pack (default gpu-pack; make gpu-check-emu uses
#                          build-emu/gpu-pack, the same plan on the emulated device)
#   GPU_CHECK_BUDGET=s     seconds for the call's steps (default 270, so the record is
#                          written well inside the device call's timeout_s of 330)
#   GPU_CHECK_JOBS=n       test processes at once (default: half the cores, at most 8)
#   GPU_CHECK_BENCH_S=s    seconds the benchmark of call 2 may take (default 120)
#   GPU_CHECK_ENTRY_S=s    seconds one test process may take (default 200; 900 emulated)
#   GPU_CHECK_SUITES="suite[:case] ..."   replace call 1's list (a rerun of what failed)
#   GPU_CHECK_SANITIZE="tool:suite[:case] ..."   replace call 2's sanitizer list
set -uo pipefail
cd "$(dirname "$0")/.."

call=${1:-}
if [ "$call" != 1 ] && [ "$call" != 2 ]; then
  echo "usage: bash tools/gpu-check.sh 1|2   (1: the GPU suites; 2: compute-sanitizer and the benchmark)" >&2
  exit 2
fi
pack=${GPU_CHECK_PACK:-gpu-pack}
out=${OUT:-benchmarks/results/gpu-check}
day=$(date -u +%Y-%m-%d)
budget=${GPU_CHECK_BUDGET:-270}
bench_s=${GPU_CHECK_BENCH_S:-120}
ncpu=$(nproc 2>/dev/null || echo 2)
jobs=${GPU_CHECK_JOBS:-$(( ncpu / 2 > 8 ? 8 : ncpu / 2 ))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
mkdir -p "$out"
rec=$out/gpu-check-$day-call$call.md
tarball=$out/gpu-check-$day-call$call-logs.tar.gz
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
logs=$work/gpu-check-$day-call$call
mkdir -p "$logs" "$work/res"
body=$work/body.md
: >"$body"
t_start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t_start) )); }
cap() { local l; l=$(left); if [ "$l" -lt "$1" ]; then echo $(( l > 5 ? l : 5 )); else echo "$1"; fi; }
say() { printf '%s\n' "$*" >>"$body"; }
problems=()   # what makes the call FAILED (one line each)
notrun=()     # what the budget left out (INCOMPLETE)
setup_failed=0
emu=0

# The record: written at exit, whatever ends the call (the budget keeps it
# inside the device call; a signal still leaves a record).
finish() {
  local status
  if [ "$setup_failed" = 1 ]; then status="FAILED (the check could not start)"
  elif [ ${#problems[@]} -gt 0 ]; then status="FAILED (${#problems[@]} problem(s))"
  elif [ ${#notrun[@]} -gt 0 ]; then status="INCOMPLETE (${#notrun[@]} step(s) not run: budget)"
  else status="PASSED"; fi
  {
    printf '# libndgpu GPU check, call %s of 2 (%s), %s\n\n' "$call" \
      "$([ "$call" = 1 ] && echo "ndgpu-info and the GPU suites" || echo "benchmark and compute-sanitizer")" "$day"
    printf -- '- result: **%s**\n' "$status"
    [ "$emu" = 1 ] && printf -- '- device: the EMULATED GPU (HIP-CPU, tests/emu): a dry run of the plan, not a GPU measurement\n'
    for p in "${problems[@]}"; do printf -- '- FAILED: %s\n' "$p"; done
    for p in "${notrun[@]}"; do printf -- '- NOT RUN (budget): %s\n' "$p"; done
    printf -- '- time: %s s of the %s s budget\n\n' "$(( $(date +%s) - t_start ))" "$budget"
    cat "$body"
    printf '\nFiles: %s, %s%s\n' "$(basename "$rec")" "$(basename "$tarball")" \
      "$([ "$call" = 2 ] && echo ", the benchmark JSON (<machine>-<date>.json)")"
  } >"$rec"
  cp "$rec" "$logs/" 2>/dev/null
  tar -C "$work" -czf "$tarball" "$(basename "$logs")" 2>/dev/null
  cat "$rec"
  rm -rf "$work"
}
trap finish EXIT
trap 'problems+=("the call was stopped by a signal"); exit 1' TERM INT HUP
fail_setup() { setup_failed=1; problems+=("$1"); exit 2; }

# --- the pack ----------------------------------------------------------------
say "## The machine and the pack"
say ""
# The fallback where no pack could be built and carried: GPU_CHECK_BUILD=1
# builds it on this machine (make gpu-prep, warnings not errors: WERROR=0),
# with OpenBLAS and Check from the .debs of `make gpu-deps` (carried in
# .gpu-deps/; the GPU machine has no apt). It costs minutes of the call.
if [ ! -f "$pack/MANIFEST" ] && [ "${GPU_CHECK_BUILD:-0}" = 1 ]; then
  t0=$(date +%s)
  if ls .gpu-deps/*.deb >/dev/null 2>&1; then
    mkdir -p .gpu-deps/root
    for f in .gpu-deps/*.deb; do dpkg -x "$f" .gpu-deps/root; done
    r=$PWD/.gpu-deps/root ob=$PWD/.gpu-deps/root/usr/lib/x86_64-linux-gnu/openblas-pthread
    ln -sf libopenblas.so.0 "$ob/libopenblas.so" 2>/dev/null || true
    export CPATH="$r/usr/include:$r/usr/include/x86_64-linux-gnu/openblas-pthread:$r/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$ob:$r/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$ob:$r/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PKG_CONFIG_PATH="$r/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  fi
  PATH="/usr/local/cuda/bin:$PATH" GPU_PACK_LIMIT=0 timeout -k 5 "$(cap 400)" \
    make -j"$ncpu" gpu-prep WERROR=0 GPU_PACK="$pack" >"$logs/build.txt" 2>&1 \
    || fail_setup "the build on this machine (GPU_CHECK_BUILD=1) failed after $(( $(date +%s) - t0 )) s: $(grep -m1 -E 'error|Error' "$logs/build.txt")"
  say "- built here (GPU_CHECK_BUILD=1, WERROR=0) in $(( $(date +%s) - t0 )) s"
fi
[ -f "$pack/MANIFEST" ] || fail_setup "no pack at '$pack' (build it with make gpu-prep and carry it: docs/gpu-check.md)"
if [ -f "$pack/pack.tar.xz" ] && [ ! -d "$pack/bin" ]; then # make gpu-prep's packed form
  t0=$(date +%s)
  if command -v xz >/dev/null; then xz -dc "$pack/pack.tar.xz" | tar -C "$pack" -xf - 2>"$logs/unpack.txt"
  else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$pack/pack.tar.xz" "$pack" 2>"$logs/unpack.txt"; fi
  [ -d "$pack/bin" ] || fail_setup "$pack/pack.tar.xz did not unpack: $(head -c 300 "$logs/unpack.txt")"
  say "- unpacked $pack/pack.tar.xz in $(( $(date +%s) - t0 )) s"
fi
grep -q '^emulated=1' "$pack/MANIFEST" && emu=1
# one test process's cap: the emulated device runs kernels on the CPU
entry_s=${GPU_CHECK_ENTRY_S:-$([ "$emu" = 1 ] && echo 900 || echo 200)}
export LD_LIBRARY_PATH="$PWD/$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"
tests_bin=$pack/bin/ndgpu_tests
info_bin=$pack/bin/ndgpu-info
say "- pack: $(sed -n 's/^commit=//p' "$pack/MANIFEST") built $(sed -n 's/^built=//p' "$pack/MANIFEST") ($(sed -n 's/^build=//p' "$pack/MANIFEST"))"
say "- cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $ncpu cores; $jobs test processes at once"
if [ "$emu" = 0 ]; then
  if command -v nvidia-smi >/dev/null; then
    say "- nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -n 1)"
  else say "- nvidia-smi: not found"; fi
fi
# CUDA's libraries: the binaries look in /usr/local/cuda/lib64 (rpath); where
# the toolkit lives elsewhere, its folder is found and put on the path.
missing=$(for b in "$pack"/bin/* "$pack"/bench/*; do [ -x "$b" ] && ldd "$b" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p'; done | sort -u)
if [ -n "$missing" ] && [ "$emu" = 0 ]; then
  for lib in $missing; do
    d=$(find /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -n 1)
    [ -n "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$d")"
  done
  missing=$(for b in "$pack"/bin/* "$pack"/bench/*; do [ -x "$b" ] && ldd "$b" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/\1/p'; done | sort -u)
fi
[ -n "$missing" ] && fail_setup "libraries not found: $(echo $missing) (ldd; see docs/gpu-check.md)"
# glibc: the pack is built on Debian 12 and needs 2.35 or newer
old_libc=$(for b in "$pack"/bin/* "$pack"/bench/*; do [ -x "$b" ] && ldd "$b" 2>&1 | grep -o "version \`[^']*' not found"; done | sort -u)
[ -n "$old_libc" ] && fail_setup "this machine's C library is too old for the pack: $(echo $old_libc) (ldd)"
say "- C library: $(ldd --version 2>&1 | head -n 1)"

# --- the gate: ndgpu-info must see a CUDA device -----------------------------
gate() {
  local rc n reason
  timeout -k 5 60 "$info_bin" >"$logs/ndgpu-info.txt" 2>&1; rc=$?
  timeout -k 5 60 "$info_bin" --json >"$logs/ndgpu-info.json" 2>&1
  n=$(sed -n 's/.*"device_count": *\([0-9][0-9]*\).*/\1/p' "$logs/ndgpu-info.json" | head -n 1)
  reason=$(grep -m1 '^GPU: ' "$logs/ndgpu-info.txt")
  say "- ndgpu-info: exit $rc; ${reason:-no GPU line}"
  grep -E '^ *(cuda:[0-9]|  +(name|compute|multiprocessors|memory))' "$logs/ndgpu-info.txt" | head -n 8 | sed 's/^/    /' >>"$body"
  if [ "$rc" != 0 ] || [ "${n:-0}" -lt 1 ]; then
    fail_setup "no CUDA device usable: ndgpu-info says '${reason:-nothing (exit $rc)}'; nothing else ran"
  fi
}
gate
say ""

# Per-entry results go to $work/res/<n> (lines for the record) and
# $work/res/<n>.bad (a problem), so entries can run at once and still be
# recorded in their list order.
entry_file() { printf '%s' "$1" | tr ':' '-'; }
check_line() { grep -E '^[0-9]+%: Checks' "$1" | tail -n 1; }

# Whether tests/*.c create the suite (and the case) of an entry
# "suite[:case]": the lists are checked by name before anything runs.
entry_known() {
  local suite=${1%%:*} tc=
  [[ $1 == *:* ]] && tc=${1#*:}
  grep -q "suite_create(\"$suite\")" tests/*.c 2>/dev/null || return 1
  [ -z "$tc" ] || grep -q "tcase_create(\"$tc\")" tests/*.c 2>/dev/null
}
check_names() { # what entries...
  local what=$1 e; shift
  for e in "$@"; do entry_known "${e#*:}" 2>/dev/null || entry_known "$e" ||
    problems+=("$what: '$e' names no suite or case of tests/*.c"); done
}
# The emulated device (make gpu-check-emu): every suite already ran there in
# make emu-test, so by default a few entries of each list run, to prove the
# call's plumbing (runs, records, logs), and the rest are only checked by
# name; GPU_CHECK_EMU_FULL=1 runs the lists whole.
emu_subset() { # list name, then entries: sets $subset
  local what=$1; shift
  subset=("$@")
  if [ "$emu" = 1 ] && [ "${GPU_CHECK_EMU_FULL:-0}" != 1 ] && [ -z "${GPU_CHECK_SUITES:-}${GPU_CHECK_SANITIZE:-}" ]; then
    subset=()
    local e
    for e in "$@"; do case " ${EMU_ENTRIES} " in *" $e "*) subset+=("$e");; esac; done
    say "- emulated: ${#subset[@]} of the $# $what run (make emu-test runs every suite on the emulated device); all $# checked by name (GPU_CHECK_EMU_FULL=1: all run)"
  fi
}
EMU_ENTRIES="elementwise:harness gpu_streams kernel_raw:kernel_raw_gpu memcheck:gpu_warp memcheck:scan"

# One suite entry "suite[:case]" of call 1.
run_suite() { # n entry
  local n=$1 e=$2 suite=${2%%:*} tc= f rc t0 s
  [[ $e == *:* ]] && tc=${e#*:}
  f=$logs/suite-$(entry_file "$e").txt
  t0=$(date +%s)
  env CK_RUN_SUITE="$suite" ${tc:+CK_RUN_CASE="$tc"} ${suite_env[@]+"${suite_env[@]}"} \
    timeout -k 5 "$(cap "$entry_s")" "$tests_bin" >"$f" 2>&1
  rc=$?
  s=$(check_line "$f")
  echo "- suite $e: ${s:-no summary line} (exit $rc, $(( $(date +%s) - t0 )) s)" >"$work/res/$n"
  { grep 'is MISSING' "$f"; awk '/^Running suite/ { p = 1 } p' "$f" | grep -E ':F:|:E:|SKIPPED'; } | head -n 10 \
    | sed 's/^/    /' >>"$work/res/$n"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "suite $e: timed out" >"$work/res/$n.bad"
  elif [ "$rc" != 0 ] || [ -z "$s" ]; then echo "suite $e: exit $rc, ${s:-no summary line}" >"$work/res/$n.bad"
  elif grep -q '^[0-9]*%: Checks: 0,' <<<"$s"; then echo "suite $e: no test ran (no such suite or case)" >"$work/res/$n.bad"
  elif grep -Eq 'SKIPPED.*(no GPU|no CUDA)|no CUDA device.*SKIPPED|not compiled in' "$f"; then
    echo "suite $e: its GPU cases were SKIPPED ($(grep -Em1 'SKIPPED.*(no GPU|no CUDA)|no CUDA device.*SKIPPED|not compiled in' "$f"))" >"$work/res/$n.bad"
  fi
}

# One sanitizer entry "tool:suite[:case]" of call 2: every allocation
# visible (ND_POOL=0), no multi-GiB cases, one process (CK_FORK=no).
run_san() { # n entry
  local n=$1 e=$2 tool=${2%%:*} rest=${2#*:} suite tc= f rc t0 s sum wrap
  suite=${rest%%:*}; [[ $rest == *:* ]] && tc=${rest#*:}
  f=$logs/sanitizer-$(entry_file "$e").txt
  if [ "$emu" = 1 ]; then wrap=(); else
    wrap=(compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20)
    [ "$tool" = racecheck ] && wrap+=(--racecheck-report hazard)
  fi
  t0=$(date +%s)
  env ND_POOL=0 ND_TEST_LARGE=0 CK_FORK=no CK_RUN_SUITE="$suite" ${tc:+CK_RUN_CASE="$tc"} \
    timeout -k 5 "$(cap "$entry_s")" ${wrap[@]+"${wrap[@]}"} "$tests_bin" >"$f" 2>&1
  rc=$?
  s=$(check_line "$f")
  sum=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -n 1 | sed 's/^========= //')
  echo "- $tool on $rest$([ "$emu" = 1 ] && echo ' (emulated: the suite without a sanitizer)'): exit $rc${sum:+, $sum}${s:+; $s} ($(( $(date +%s) - t0 )) s)" >"$work/res/$n"
  grep -E '^========= (Invalid|Race|Barrier|Error|Program hit|Uninitialized)|:F:|:E:' "$f" | head -n 8 | sed 's/^/    /' >>"$work/res/$n"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "$tool on $rest: timed out" >"$work/res/$n.bad"
  elif [ "$rc" != 0 ] || [ -z "$s" ]; then echo "$tool on $rest: exit $rc${sum:+, $sum}${s:+; $s}" >"$work/res/$n.bad"
  fi
}

# Run the entries, $jobs at once; what the budget does not reach is NOT RUN.
run_list() { # function min_left entries...
  local fn=$1 need=$2 i=0 e; shift 2
  rm -f "$work"/res/*
  for e in "$@"; do
    i=$((i + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    if [ "$(left)" -lt "$need" ]; then echo "NOTRUN $e" >"$work/res/$i"; continue; fi
    "$fn" "$i" "$e" &
  done
  wait
  for i in $(seq 1 $#); do
    if grep -q '^NOTRUN ' "$work/res/$i" 2>/dev/null; then
      notrun+=("$(sed 's/^NOTRUN //' "$work/res/$i")"); say "- $(sed 's/^NOTRUN //' "$work/res/$i"): NOT RUN (budget)"; continue
    fi
    cat "$work/res/$i" >>"$body" 2>/dev/null
    [ -f "$work/res/$i.bad" ] && problems+=("$(cat "$work/res/$i.bad")")
  done
}

if [ "$call" = 1 ]; then
  # The suites of the CUDA backend, the test cases (Check's TCase, CK_RUN_CASE)
  # that run on cuda:0; longest first so that $jobs processes finish together.
  # Left out as CPU-only: gpu_ew:index, gpu_reduce:units and :emulation,
  # gpu_linalg:plan_on_cpu, gpu_random:kernel_on_host, random:philox and the
  # elementwise cases other than the harness and ops13; the suites that test
  # the CPU alone are not listed (make test runs them everywhere).
  suites=(elementwise:harness gpu_ew:device gpu_reduce:gpu gpu_linalg:gpu fft linalg_decomp la_slot complex_ew
          sort unique scan reduce_nan index index_mask sort_stats matmul_cpx matmul_half softmax amp complex
          linalg_norm gpu gpu_warp gpu_streams gpu_memory graph gpu_random:gpu elementwise:ops13 random:integers_bernoulli einsum
          manip:manip reduce_cpx dlpack profiler profiler_ops threads runtime kernel_raw:kernel_raw_gpu kernel expr
          sparse sparse_npz)
  [ -n "${GPU_CHECK_SUITES:-}" ] && read -r -a suites <<<"$GPU_CHECK_SUITES"
  suite_env=()
  # The emulated device runs kernels on the CPU: the multi-GiB cases would take
  # minutes there (make emu-test runs them).
  [ "$emu" = 1 ] && suite_env=(ND_TEST_LARGE=0)
  say "## The GPU suites (${#suites[@]} entries, suite[:case])"
  say ""
  check_names "the suite list" "${suites[@]}"
  emu_subset "suite entries" "${suites[@]}"
  t0=$(date +%s)
  run_list run_suite 20 "${subset[@]}"
  say "- the suites in all: $(( $(date +%s) - t0 )) s"
  say ""

  say "## ndgpu-info --watch and the GPU examples"
  say ""
  if [ "$(left)" -gt 20 ]; then
    timeout -k 5 "$(cap 15)" "$info_bin" --watch 0.5 --count 3 >"$logs/watch.txt" 2>&1
    say "- ndgpu-info --watch 0.5 --count 3: exit $?; its last sample:"
    awk '/: sample 3,/{p=1} p' "$logs/watch.txt" | head -n 16 | sed 's/^/    /' >>"$body"
  else notrun+=("ndgpu-info --watch"); fi
  if [ -x "$pack/bin/profile_training" ] && [ "$(left)" -gt 30 ]; then
    t0=$(date +%s)
    ND_DEVICE=cuda:0 timeout -k 5 "$(cap 60)" "$pack/bin/profile_training" "$logs/profile-trace.json" \
      "$logs/profile-summary.json" >"$logs/profile.txt" 2>&1
    rc=$?
    say "- examples/profile_training on cuda:0: exit $rc ($(( $(date +%s) - t0 )) s); its table:"
    sed -n '1,20p' "$logs/profile.txt" | sed 's/^/    /' >>"$body"
    [ "$rc" = 0 ] || problems+=("examples/profile_training: exit $rc")
    if [ "$rc" = 0 ] && command -v python3 >/dev/null; then
      python3 tests/check_trace.py "$logs/profile-trace.json" "$logs/profile-summary.json" >"$logs/profile-trace-check.txt" 2>&1
      rc=$?; say "- the trace (tests/check_trace.py): exit $rc, $(tail -n 1 "$logs/profile-trace-check.txt")"
      [ "$rc" = 0 ] || problems+=("the profiler trace: tests/check_trace.py exit $rc")
    fi
  elif [ -x "$pack/bin/profile_training" ]; then notrun+=("examples/profile_training"); fi
  if [ -x "$pack/bin/train_mlp_amp" ] && [ "$(left)" -gt 40 ]; then
    t0=$(date +%s)
    amp_args=(--device cuda); [ "$emu" = 1 ] && amp_args+=(--small)
    timeout -k 5 "$(cap 90)" "$pack/bin/train_mlp_amp" "${amp_args[@]}" >"$logs/amp.txt" 2>&1
    rc=$?
    say "- examples/train_mlp_amp ${amp_args[*]}: exit $rc ($(( $(date +%s) - t0 )) s); its summary:"
    tail -n 12 "$logs/amp.txt" | sed 's/^/    /' >>"$body"
    [ "$rc" = 0 ] || problems+=("examples/train_mlp_amp: exit $rc")
  elif [ -x "$pack/bin/train_mlp_amp" ]; then notrun+=("examples/train_mlp_amp"); fi
else
  # 1. the quick GPU benchmark first, on an idle GPU: compare.py runs the goal
  #    groups first and, stopped by its cap, still writes its partial record.
  say "## The quick GPU benchmark (compare.py --quick --device cuda, CuPy beside it)"
  say ""
  t0=$(date +%s)
  mkdir -p "$work/bench"
  extra=()
  # the emulated device: a few cases prove the path (its times mean nothing)
  [ "$emu" = 1 ] && extra=(--filter /float32/1/ --benches elementwise,overhead --no-numpy --no-cupy --min-time 0.01)
  PYTHONUNBUFFERED=1 timeout -k 10 "$(cap "$bench_s")" python3 benchmarks/compare.py --quick --rounds 1 --device cuda \
    --bindir "$pack/bench" --out "$work/bench" --no-plot --no-install ${extra[@]+"${extra[@]}"} >"$logs/bench.txt" 2>&1
  rc=$?
  for j in "$work"/bench/*.json; do [ -f "$j" ] && cp "$j" "$out/"; done
  for l in "$work"/bench/*.log; do [ -f "$l" ] && cp "$l" "$logs/"; done
  say "- compare.py: exit $rc ($(( $(date +%s) - t0 )) s$([ "$rc" = 124 ] && echo ": stopped at its cap, the partial record kept")); $(ls "$work"/bench/*.json 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')"
  sed -n '/^GPU goals/,/^$/p' "$logs/bench.txt" | sed 's/^/    /' >>"$body"
  grep -E '^compare: [0-9]+ cases|problem:' "$logs/bench.txt" | head -n 12 | sed 's/^/    /' >>"$body"
  case $rc in 0) ;; 124) notrun+=("part of the benchmark (stopped at ${bench_s} s)");;
    *) problems+=("compare.py: exit $rc ($(grep -E '^compare: [0-9]+ cases' "$logs/bench.txt" | tail -n 1))");; esac
  ls "$work"/bench/*.json >/dev/null 2>&1 || problems+=("no benchmark JSON")
  say ""

  # 2. compute-sanitizer on the suites that launch kernels
  if [ "$emu" = 0 ] && ! command -v compute-sanitizer >/dev/null; then
    problems+=("compute-sanitizer not found")
  else
    san=(memcheck:gpu_ew:device memcheck:gpu_reduce:gpu memcheck:sort memcheck:scan memcheck:index memcheck:index_mask
         memcheck:unique memcheck:gpu memcheck:gpu_warp memcheck:gpu_random:gpu memcheck:softmax memcheck:reduce_nan
         memcheck:complex_ew memcheck:gpu_linalg:gpu memcheck:matmul_half memcheck:fft memcheck:sparse
         racecheck:gpu_reduce:gpu racecheck:softmax racecheck:gpu_warp synccheck:gpu_warp synccheck:sort)
    [ -n "${GPU_CHECK_SANITIZE:-}" ] && read -r -a san <<<"$GPU_CHECK_SANITIZE"
    if [ "$emu" = 1 ]; then # without a sanitizer the tools' runs of one suite are the same run: once
      declare -A seen=(); uniq=()
      for e in "${san[@]}"; do [ -n "${seen[${e#*:}]:-}" ] && continue; seen[${e#*:}]=1; uniq+=("$e"); done
      [ ${#uniq[@]} -lt ${#san[@]} ] && san_note="- emulated: $(( ${#san[@]} - ${#uniq[@]} )) entries left out, their suite already in the list (no sanitizer here)"
      san=("${uniq[@]}")
    fi
    say "## compute-sanitizer (ND_POOL=0, ND_TEST_LARGE=0, CK_FORK=no; ${#san[@]} entries, tool:suite[:case])"
    say ""
    [ "$emu" = 0 ] && say "- $(compute-sanitizer --version 2>&1 | grep -m1 -i version)"
    [ -n "${san_note:-}" ] && say "$san_note"
    check_names "the sanitizer list" "${san[@]}"
    emu_subset "sanitizer entries" "${san[@]}"
    t0=$(date +%s)
    run_list run_san 25 "${subset[@]}"
    say "- compute-sanitizer in all: $(( $(date +%s) - t0 )) s"
  fi
fi
[ ${#problems[@]} -eq 0 ] && [ ${#notrun[@]} -eq 0 ] && exit 0
exit 1
