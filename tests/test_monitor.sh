#!/usr/bin/env bash
# Test of the live monitor, ndgpu-info --watch (make test-monitor, part of
# make test through extra-tests):
#  1. --watch 0.05 --count 3 prints 3 samples and exits 0; each has the GPU
#     part (GPUs, or the one line saying NVML is not available / no GPU),
#     the CPU line and the pools of cpu:0; a library path that does not
#     exist gives "NVML not available: <path>: cannot open ...".
#  2. --json: one valid JSON object per line per sample, with the keys.
#  3. a fake NVML (tests/fake_nvml.c, loaded with ND_NVML_LIBRARY): its exact
#     values in the readable output and in the JSON, n/a / null for the
#     query it does not support; 0 GPUs -> "no GPU"; a failing nvmlInit_v2.
#  4. bad values exit 2 with a message on stderr.
#  5. SIGINT and SIGTERM end --watch cleanly with exit status 0.
#
#   bash tests/test_monitor.sh [build/ndgpu-info] [build/tests/libfake_nvml.so]
set -uo pipefail
bin=${1:-build/ndgpu-info}
fake=${2:-$(dirname "$bin")/tests/libfake_nvml.so}
fail() { echo "test-monitor: FAILED ($*)"; exit 1; }
[ -x "$bin" ] || fail "$bin does not exist: run make tools"
[ -f "$fake" ] || fail "$fake does not exist: run make $fake"
case $fake in /*) ;; *) fake=$PWD/$fake ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_py=0
command -v python3 >/dev/null && have_py=1

# Every sample of a readable output has its header, a GPU part, the CPU
# line and the pool line of cpu:0.
check_samples() { # out n
  local n
  n=$(grep -c '^ndgpu-info --watch 0.05: sample [0-9]*, ' <<<"$1")
  [ "$n" -eq "$2" ] || { echo "$1"; fail "$n sample headers instead of $2"; }
  n=$(grep -Ec '^(GPU: |GPU 0  )' <<<"$1")
  [ "$n" -eq "$2" ] || { echo "$1"; fail "$n GPU parts instead of $2"; }
  n=$(grep -c '^CPU  load average .*; memory .* used; this process RSS ' <<<"$1")
  [ "$n" -eq "$2" ] || { echo "$1"; fail "$n CPU lines instead of $2"; }
  n=$(grep -c '^Pools (pool statistics of this process; for another process use its nd_memory_get_stats)$' <<<"$1")
  [ "$n" -eq "$2" ] || { echo "$1"; fail "$n pool headers instead of $2"; }
  n=$(grep -Ec '^  cpu:0 +in use .*, peak .*, cached .*, reserved .*, limit .*, fragmentation [0-9.]+ %$' <<<"$1")
  [ "$n" -eq "$2" ] || { echo "$1"; fail "$n cpu:0 pool lines instead of $2"; }
}

# 1. This machine, whatever it has.
out=$("$bin" --watch 0.05 --count 3 2>&1) || { echo "$out"; fail "--watch 0.05 --count 3 exit status"; }
check_samples "$out" 3
here=$(grep -m1 -E '^(GPU: |GPU 0  )' <<<"$out")
if grep -q '^GPU 0  ' <<<"$out"; then
  grep -q '^  memory  ' <<<"$out" || { echo "$out"; fail "a GPU without its memory line"; }
else
  grep -Eq '^GPU: (NVML not available: |no GPU)' <<<"$out" || { echo "$out"; fail "no GPU and no reason why"; }
fi
out=$(ND_NVML_LIBRARY=$tmp/none/libnvidia-ml.so.1 "$bin" --watch 0.05 --count 1) || fail "exit status without NVML"
grep -q "^GPU: NVML not available: $tmp/none/libnvidia-ml.so.1: cannot open shared object file" <<<"$out" ||
  { echo "$out"; fail "a missing NVML library is not reported"; }
check_samples "$out" 1

# 2. JSON Lines.
"$bin" --watch 0.05 --count 2 --json >"$tmp/j" 2>&1 || { cat "$tmp/j"; fail "--json exit status"; }
[ "$(wc -l <"$tmp/j")" -eq 2 ] || { cat "$tmp/j"; fail "--watch --count 2 --json does not print 2 lines"; }
if [ $have_py = 1 ]; then
  python3 - "$tmp/j" <<'EOF' || fail "--watch --json lines"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, line in enumerate(lines, 1):
    d = json.loads(line)
    for k in ("sample", "time", "unix_time", "interval_s", "gpu", "cpu", "pool_scope", "pools"):
        assert k in d, (k, line)
    assert d["sample"] == i and d["interval_s"] == 0.05, line
    assert set(d["gpu"]) == {"available", "reason", "devices"}, line
    assert d["gpu"]["available"] == (d["gpu"]["reason"] is None) == bool(d["gpu"]["devices"]), line
    assert set(d["cpu"]) == {"loadavg", "memory_used", "memory_total", "process_rss"}, line
    assert d["cpu"]["process_rss"] > 0, line
    p = d["pools"][0]
    assert p["device"] == "cpu:0", line
    for k in ("in_use", "peak_in_use", "cached", "reserved", "limit", "largest_free_block", "fragmentation", "pooled"):
        assert k in p, (k, line)
    assert 0.0 <= p["fragmentation"] <= 1.0, line
EOF
fi

# 3. The fake NVML: exact values.
out=$(ND_NVML_LIBRARY=$fake "$bin" --watch 0.05 --count 2 2>&1) || { echo "$out"; fail "fake NVML exit status"; }
check_samples "$out" 2
for want in \
  'GPU 0  Fake H200 0' \
  '  memory       40.0 GiB / 140.0 GiB used' \
  '  utilisation  gpu 37 %, memory 12 %' \
  '  temperature  45 C' \
  '  power        250.5 W / 700.0 W' \
  '  clocks       graphics 1980 MHz, SM 1980 MHz, memory 2619 MHz' \
  'GPU 1  Fake H200 1' \
  '  memory       1.0 GiB / 140.0 GiB used' \
  '  utilisation  gpu 5 %, memory 1 %' \
  '  temperature  n/a' \
  '  power        95.5 W / 700.0 W' \
  '  clocks       graphics 345 MHz, SM 345 MHz, memory 2619 MHz' \
  '  processes    99999999 ?, n/a'; do
  [ "$(grep -cxF -- "$want" <<<"$out")" -eq 2 ] || { echo "$out"; fail "fake NVML: not twice: '$want'"; }
done
[ "$(grep -Ecx '  processes    [0-9]+ ndgpu-info, 1\.0 GiB' <<<"$out")" -eq 2 ] ||
  { echo "$out"; fail "fake NVML: the process (the monitor itself) is missing"; }
ND_NVML_LIBRARY=$fake "$bin" --watch 0.05 --count 2 --json >"$tmp/f" || fail "fake NVML --json exit status"
[ "$(wc -l <"$tmp/f")" -eq 2 ] || { cat "$tmp/f"; fail "fake NVML --json does not print 2 lines"; }
if [ $have_py = 1 ]; then
  python3 - "$tmp/f" <<'EOF' || fail "fake NVML --json values"
import json, sys
G = 1 << 30
for line in open(sys.argv[1]).read().splitlines():
    d = json.loads(line)
    g = d["gpu"]
    assert g["available"] is True and g["reason"] is None, line
    a, b = g["devices"]
    assert (a["index"], a["name"], b["index"], b["name"]) == (0, "Fake H200 0", 1, "Fake H200 1"), line
    assert (a["memory_used"], a["memory_total"], b["memory_used"], b["memory_total"]) == (40 * G, 140 * G, G, 140 * G)
    assert (a["utilization_gpu"], a["utilization_memory"], b["utilization_gpu"], b["utilization_memory"]) == (37, 12, 5, 1)
    assert a["temperature_c"] == 45 and b["temperature_c"] is None, line
    assert (a["power_w"], a["power_limit_w"], b["power_w"], b["power_limit_w"]) == (250.5, 700.0, 95.5, 700.0)
    assert a["clocks_mhz"] == {"graphics": 1980, "sm": 1980, "memory": 2619}, line
    assert b["clocks_mhz"] == {"graphics": 345, "sm": 345, "memory": 2619}, line
    (pa,), (pb,) = a["processes"], b["processes"]
    assert pa["name"] == "ndgpu-info" and pa["used_memory"] == G and pa["pid"] > 0, line
    assert pb == {"pid": 99999999, "name": None, "used_memory": None}, line
EOF
fi
out=$(FAKE_NVML_GPUS=0 ND_NVML_LIBRARY=$fake "$bin" --watch 0.05 --count 1) || fail "fake NVML, 0 GPUs: exit status"
grep -qx 'GPU: no GPU (NVML lists no device)' <<<"$out" || { echo "$out"; fail "0 GPUs is not 'no GPU'"; }
check_samples "$out" 1
out=$(FAKE_NVML_INIT_FAIL=1 ND_NVML_LIBRARY=$fake "$bin" --watch 0.05 --count 1) || fail "failing nvmlInit_v2: exit status"
grep -qx 'GPU: NVML not available: nvmlInit_v2: Driver Not Loaded' <<<"$out" ||
  { echo "$out"; fail "a failing nvmlInit_v2 is not reported"; }
out=$(FAKE_NVML_INIT_FAIL=1 ND_NVML_LIBRARY=$fake "$bin" --watch 0.05 --count 1 --json) || fail "failing init --json"
grep -qF '"gpu": {"available": false, "reason": "NVML not available: nvmlInit_v2: Driver Not Loaded", "devices": []}' \
  <<<"$out" || { echo "$out"; fail "a failing nvmlInit_v2 in the JSON"; }

# 4. Bad values.
for args in "--watch 0" "--watch -1" "--watch abc" "--watch 1x" "--watch nan" "--watch=0" \
            "--count 0" "--count x" "--count -3" "--count" "--watch 0.05 --count 2.5"; do
  # shellcheck disable=SC2086
  "$bin" $args >"$tmp/o" 2>"$tmp/e"
  rc=$?
  [ $rc -eq 2 ] || fail "'ndgpu-info $args' exits $rc, not 2"
  grep -q "^ndgpu-info: invalid value" "$tmp/e" || { cat "$tmp/e"; fail "'ndgpu-info $args': no message on stderr"; }
  [ ! -s "$tmp/o" ] || fail "'ndgpu-info $args' printed on stdout"
done

# 5. SIGINT / SIGTERM end it with status 0.
for sig in INT TERM; do
  "$bin" --watch 0.05 >"$tmp/s" 2>&1 &
  pid=$!
  sleep 0.3
  kill -"$sig" "$pid"
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"; wait "$pid"
    fail "SIG$sig does not stop --watch within 3 s"
  fi
  wait "$pid"
  rc=$?
  [ $rc -eq 0 ] || { cat "$tmp/s"; fail "SIG$sig: exit status $rc, not 0"; }
  n=$(grep -c '^ndgpu-info --watch 0.05: sample' "$tmp/s")
  [ "$n" -ge 2 ] || { cat "$tmp/s"; fail "SIG$sig: $n samples in 0.3 s"; }
done

json=valid; [ $have_py = 1 ] || json="not validated (no python3)"
echo "test-monitor: PASSED (--watch/--count/--json, JSON $json, fake NVML values and n/a, bad values, SIGINT/SIGTERM; here: $here)"
