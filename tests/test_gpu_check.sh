#!/usr/bin/env bash
# Tests of tools/gpu-check.sh without a GPU (make test-gpu-check, part of
# make test through extra-tests): the paths a GPU machine must never turn
# into a green record.
#  1. no pack: exit 2, a record that says FAILED and names the pack, the
#     record and the log tarball and nothing else in $OUT.
#  2. a pack whose ndgpu-info is this build's (it sees no CUDA device here):
#     calls 1 and 2 exit 2, the record says FAILED and quotes ndgpu-info's
#     reason, no suite and no benchmark ran, two files in $OUT, the tarball
#     holds ndgpu-info's report.
#  3. a pack whose ndgpu-info reports a device but whose test binary skips
#     its GPU cases ("SKIPPED (no GPU)"): exit 1, FAILED, the suite named.
#  4. a suite that fails, one that runs no test (a case that does not
#     exist) and one that passes: exit 1, FAILED names the first two only;
#     all passing: exit 0, PASSED.
#  4b. a pack in its packed form (pack.tar.xz) is unpacked, then runs.
#  5. the budget: an entry it does not reach is NOT RUN, the record says
#     INCOMPLETE, exit 1.
#  6. call 2: a failing benchmark run and a failing sanitizer entry are
#     FAILED, a passing entry is not; at most 3 files.
#
#   bash tests/test_gpu_check.sh [build/ndgpu-info]
set -uo pipefail
unset OUT GPU_CHECK_SUITES GPU_CHECK_SANITIZE GPU_CHECK_BUILD GPU_CHECK_BUDGET GPU_CHECK_JOBS
info=${1:-build/ndgpu-info}
fail() { echo "test-gpu-check: FAILED ($*)"; exit 1; }
[ -x "$info" ] || fail "$info does not exist: run make tools"
case $info in /*) ;; *) info=$PWD/$info ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
day=$(date -u +%Y-%m-%d)

run_check() { # name call pack -> $tmp/<name>/ (OUT), sets rc, rec
  local name=$1 call=$2 pack=$3
  mkdir -p "$tmp/$name"
  OUT=$tmp/$name GPU_CHECK_PACK=$pack GPU_CHECK_BUDGET=${budget:-60} bash tools/gpu-check.sh "$call" >"$tmp/$name.stdout" 2>&1
  rc=$?
  rec=$tmp/$name/gpu-check-$day-call$call.md
  [ -f "$rec" ] || { cat "$tmp/$name.stdout"; fail "$name: no record $rec"; }
}
nfiles() { find "$1" -type f | wc -l; }

# A pack: MANIFEST, bin/ndgpu-info (given), bin/ndgpu_tests (a stub that
# leaves a mark when it runs and plays the script given), an empty bench/.
make_pack() { # dir info_program tests_script
  mkdir -p "$1/bin" "$1/bench" "$1/lib"
  printf 'commit=test\nbuilt=now\nbuild=stub\nemulated=0\n' >"$1/MANIFEST"
  cp "$2" "$1/bin/ndgpu-info"
  { echo '#!/usr/bin/env bash'; echo "touch '$1/ran'"; echo 'echo "Running suite(s): $CK_RUN_SUITE"'; cat "$3"; } \
    >"$1/bin/ndgpu_tests"
  chmod +x "$1/bin/ndgpu_tests"
}

# 1. no pack
run_check nopack 1 "$tmp/none"
[ "$rc" = 2 ] || fail "no pack: exit $rc, want 2"
grep -q 'result: \*\*FAILED' "$rec" || fail "no pack: the record does not say FAILED"
grep -q "no pack at '$tmp/none'" "$rec" || fail "no pack: the record does not name the pack"
[ -f "$tmp/nopack/gpu-check-$day-call1-logs.tar.gz" ] || fail "no pack: no log tarball"
[ "$(nfiles "$tmp/nopack")" = 2 ] || fail "no pack: $(nfiles "$tmp/nopack") files in OUT, want 2"

# 2. no CUDA device: this build's ndgpu-info
printf 'echo "100%%: Checks: 1, Failures: 0, Errors: 0"\n' >"$tmp/pass.sh"
make_pack "$tmp/nodev" "$info" "$tmp/pass.sh"
for call in 1 2; do
  run_check "nodev$call" "$call" "$tmp/nodev"
  [ "$rc" = 2 ] || { cat "$tmp/nodev$call.stdout"; fail "no device, call $call: exit $rc, want 2"; }
  grep -q 'result: \*\*FAILED' "$rec" || fail "no device, call $call: the record does not say FAILED"
  grep -q 'no CUDA device usable: ndgpu-info says .GPU: ' "$rec" || fail "no device, call $call: ndgpu-info's reason is not in the record"
  grep -q 'SKIPPED\|PASSED' "$rec" && fail "no device, call $call: the record says SKIPPED or PASSED"
  [ -e "$tmp/nodev/ran" ] && fail "no device, call $call: the test binary ran"
  [ "$(nfiles "$tmp/nodev$call")" = 2 ] || fail "no device, call $call: $(nfiles "$tmp/nodev$call") files in OUT, want 2"
  tar -tzf "$tmp/nodev$call/gpu-check-$day-call$call-logs.tar.gz" >"$tmp/list" 2>&1
  grep -q 'ndgpu-info.txt$' "$tmp/list" || fail "no device, call $call: the tarball lacks ndgpu-info's report"
done

# A stand-in ndgpu-info that sees one device (for 3 and 4).
cat >"$tmp/info1.sh" <<'EOF'
#!/usr/bin/env bash
if [ "${1:-}" = --json ]; then echo '{"device_count": 1}'; else echo 'GPU: 1 CUDA device(s), runtime 13.0, driver 13.0'; fi
EOF
chmod +x "$tmp/info1.sh"

# 3. GPU cases skipped although ndgpu-info saw a device
cat >"$tmp/skip.sh" <<'EOF'
echo "gpu suite: SKIPPED (no GPU: CUDA driver not found)"
echo "100%: Checks: 2, Failures: 0, Errors: 0"
EOF
make_pack "$tmp/skip" "$tmp/info1.sh" "$tmp/skip.sh"
GPU_CHECK_SUITES="gpu" run_check skip 1 "$tmp/skip"
[ "$rc" = 1 ] || fail "skipped GPU cases: exit $rc, want 1"
grep -q 'result: \*\*FAILED' "$rec" || fail "skipped GPU cases: the record does not say FAILED"
grep -q 'FAILED: suite gpu: its GPU cases were SKIPPED' "$rec" || fail "skipped GPU cases: the suite is not named"

# 4. a failing suite, a suite running no test, a passing one; then all passing
cat >"$tmp/mixed.sh" <<'EOF'
case "$CK_RUN_SUITE:${CK_RUN_CASE:-}" in
  sort:) echo "tests/test_sort.c:12:F:sort:test_sort_dtypes:0: wrong"; echo "50%: Checks: 2, Failures: 1, Errors: 0"; exit 1;;
  gpu_reduce:nosuch) echo "100%: Checks: 0, Failures: 0, Errors: 0";;
  *) echo "100%: Checks: 3, Failures: 0, Errors: 0";;
esac
EOF
make_pack "$tmp/mixed" "$tmp/info1.sh" "$tmp/mixed.sh"
GPU_CHECK_SUITES="sort gpu_reduce:nosuch scan" run_check mixed 1 "$tmp/mixed"
[ "$rc" = 1 ] || fail "a failing suite: exit $rc, want 1"
grep -q 'FAILED: suite sort: exit 1' "$rec" || fail "a failing suite is not named FAILED"
grep -q 'test_sort_dtypes' "$rec" || fail "the failing test's line is not in the record"
grep -q 'FAILED: suite gpu_reduce:nosuch: no test ran' "$rec" || fail "a case that ran no test is not FAILED"
grep -q 'FAILED: suite scan' "$rec" && fail "the passing suite is named FAILED"
grep -q '^- suite scan: 100%: Checks: 3' "$rec" || fail "the passing suite's line is missing"
GPU_CHECK_SUITES="scan index" run_check pass 1 "$tmp/mixed"
[ "$rc" = 0 ] || { cat "$rec"; fail "all passing: exit $rc, want 0"; }
grep -q 'result: \*\*PASSED' "$rec" || fail "all passing: the record does not say PASSED"
[ "$(nfiles "$tmp/pass")" = 2 ] || fail "all passing: $(nfiles "$tmp/pass") files in OUT, want 2"

# 4b. the packed form (make gpu-prep: pack.tar.xz + MANIFEST) is unpacked first
mkdir -p "$tmp/xz"
cp "$tmp/mixed/MANIFEST" "$tmp/xz/"
tar -C "$tmp/mixed" -cf - MANIFEST bin bench lib | xz -1 >"$tmp/xz/pack.tar.xz"
GPU_CHECK_SUITES="scan" run_check xz 1 "$tmp/xz"
[ "$rc" = 0 ] || { cat "$rec"; fail "packed form: exit $rc, want 0"; }
grep -q "^- unpacked $tmp/xz/pack.tar.xz" "$rec" || fail "packed form: no unpack line"
[ -x "$tmp/xz/bin/ndgpu_tests" ] || fail "packed form: not unpacked"

# 5. the budget: the first suite runs (over 20 s left), then 11 s pass, the second is not reached
printf 'sleep 11; echo "100%%: Checks: 1, Failures: 0, Errors: 0"\n' >"$tmp/slow.sh"
make_pack "$tmp/slow" "$tmp/info1.sh" "$tmp/slow.sh"
budget=30 GPU_CHECK_JOBS=1 GPU_CHECK_SUITES="scan index" run_check slow 1 "$tmp/slow"
[ "$rc" = 1 ] || fail "budget: exit $rc, want 1"
grep -q 'result: \*\*INCOMPLETE' "$rec" || fail "budget: the record does not say INCOMPLETE"
grep -q '^- NOT RUN (budget): index' "$rec" || fail "budget: the suite not reached is not named"
grep -q '^- suite scan: 100%' "$rec" || fail "budget: the first suite did not run"

# 6. call 2 on an emulated pack: the benchmark's failure (no benchmark
#    binaries) and a failing sanitizer entry are FAILED, the passing one not
make_pack "$tmp/emu" "$tmp/info1.sh" "$tmp/mixed.sh"
sed -i 's/^emulated=0/emulated=1/' "$tmp/emu/MANIFEST"
GPU_CHECK_SANITIZE="memcheck:sort racecheck:scan" run_check emu2 2 "$tmp/emu"
[ "$rc" = 1 ] || { cat "$rec"; fail "call 2: exit $rc, want 1"; }
grep -q 'FAILED: compare.py: exit 2' "$rec" || fail "call 2: the benchmark's failure is not FAILED"
grep -q 'FAILED: memcheck on sort: exit 1' "$rec" || fail "call 2: the failing sanitizer entry is not FAILED"
grep -q 'FAILED: racecheck on scan' "$rec" && fail "call 2: the passing sanitizer entry is FAILED"
grep -q '^- racecheck on scan (emulated: the suite without a sanitizer): exit 0; 100%: Checks: 3' "$rec" \
  || fail "call 2: the passing sanitizer entry's line is missing"
[ "$(nfiles "$tmp/emu2")" -le 3 ] || fail "call 2: $(nfiles "$tmp/emu2") files in OUT, want at most 3"

echo "test-gpu-check: PASSED (no pack, no CUDA device (calls 1 and 2), skipped GPU cases, failing and empty suites give FAILED, the budget INCOMPLETE, call 2 names the failing benchmark and sanitizer runs; at most 3 files per call)"
