#!/usr/bin/env bash
# Run the Check suites of a test binary in JOBS processes at a time, one
# process per suite (CK_RUN_SUITE), instead of all suites in one process:
# `make check-run CHECK_JOBS=2` (CI). The environment passes through
# (CK_FORK=no, ND_DEVICE, ND_TEST_LARGE, the sanitizers' options), so a
# sanitizer build still checks each suite's allocations when its process
# exits. Prints one line per suite as it ends, then Check's totals; the
# output of a failed suite is printed whole; suites without a test in this
# build are named. Exit status 1 when a suite fails.
#
#   mk/run-suites.sh BIN JOBS [SUITE...]   (default: every suite that
#                                           tests/test_main.c lists)
# SUITE_WRAPPER="valgrind -q ..." runs each suite under that command.
# The longest suites start first: the times of the last run are kept in
# BIN's directory (.suite-times); a fresh build uses the order below.
set -uo pipefail
bin=$1 jobs=${2:-2}
shift 2 || true
if [ $# -gt 0 ]; then suites=("$@"); else
  mapfile -t suites < <(grep -E '^#define SUITES_[A-Z0-9_]+\(X\)' tests/test_main.c | grep -oE '\bX\([a-z0-9_]+\)' |
                        sed -E 's/^X\((.*)\)$/\1/')
fi
[ ${#suites[@]} -gt 0 ] || { echo "run-suites: no suite found in tests/test_main.c" >&2; exit 1; }
read -ra wrap <<<"${SUITE_WRAPPER:-}"
times=$(dirname "$bin")/.suite-times${SUITE_WRAPPER:+-wrapped}
heavy="elementwise reduce coverage vmath linalg gpu_ew complex_ew linalg_decomp la_slot fft sort index out faults"
order() { # suite names, the longest first (last run's times, else the list above)
  for s in "${suites[@]}"; do
    t=$(awk -v s="$s" '$1 == s { print $2 }' "$times" 2>/dev/null | tail -n 1)
    if [ -z "$t" ]; then t=0; i=1; for h in $heavy; do [ "$h" = "$s" ] && t=$(( 100000 - i )); i=$((i + 1)); done; fi
    echo "$t $s"
  done | sort -rn -k1,1 | awk '{ print $2 }'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
run_one() { # suite -> $tmp/<suite>.log, .rc, .s
  local s=$1 a b
  a=$(date +%s%N)
  CK_RUN_SUITE=$s "${wrap[@]}" "$bin" > "$tmp/$s.log" 2>&1
  echo $? > "$tmp/$s.rc"
  b=$(date +%s%N)
  echo $(( (b - a) / 1000000 )) > "$tmp/$s.ms"
  printf 'suite %-16s %6.1f s  %s\n' "$s" "$(awk -v m="$(cat "$tmp/$s.ms")" 'BEGIN { print m / 1000 }')" \
    "$(grep -E '^[0-9]+%: Checks:' "$tmp/$s.log" | tail -n 1)"
}
running=0
for s in $(order); do
  run_one "$s" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
checks=0 fails=0 errs=0 bad=() empty=()
: > "$tmp/times"
for s in "${suites[@]}"; do
  rc=$(cat "$tmp/$s.rc" 2>/dev/null || echo 99)
  line=$(grep -E '^[0-9]+%: Checks:' "$tmp/$s.log" | tail -n 1)
  read -r c f e < <(sed -E 's/.*Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/' <<<"${line:-Checks: 0, Failures: 0, Errors: 0}")
  checks=$((checks + c)) fails=$((fails + f)) errs=$((errs + e))
  echo "$s $(cat "$tmp/$s.ms" 2>/dev/null || echo 0)" >> "$tmp/times"
  if [ "$rc" != 0 ] || [ -z "$line" ]; then bad+=("$s"); fi
  [ "$c" = 0 ] && empty+=("$s")
done
# keep the times of suites not run this time
{ cat "$tmp/times"; awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$tmp/times" "$times" 2>/dev/null; } \
  > "$tmp/times.all" && cp "$tmp/times.all" "$times" 2>/dev/null || true
for s in "${bad[@]}"; do
  echo "---- suite $s FAILED (exit status $(cat "$tmp/$s.rc" 2>/dev/null), its output:"
  cat "$tmp/$s.log"
  echo "---- end of suite $s"
done
[ ${#empty[@]} -eq 0 ] || echo "run-suites: no test in this build: ${empty[*]}"
pct=100; [ $checks -gt 0 ] && pct=$(( (checks - fails - errs) * 100 / checks ))
echo "${pct}%: Checks: $checks, Failures: $fails, Errors: $errs (${#suites[@]} suites, $jobs at a time, $(( $(date +%s) - t0 )) s)"
[ ${#bad[@]} -eq 0 ] || { echo "run-suites: FAILED: ${bad[*]}"; exit 1; }
