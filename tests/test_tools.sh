#!/usr/bin/env bash
# Smoke test of tools/ndgpu-info: the plain report and --json run, exit 0,
# report the version, the CPU device and (without a GPU) the one-line reason;
# the JSON is valid (python3 -m json.tool, when python3 exists) and has the
# expected keys; the CPU path is named and ND_CPU_ISA=baseline lowers it;
# a bad option exits 2.
set -uo pipefail
bin=${1:-build/ndgpu-info}
fail() { echo "test-tools: FAILED ($*)"; exit 1; }
[ -x "$bin" ] || fail "$bin does not exist: run make tools"
out=$("$bin" 2>&1) || { echo "$out"; fail "ndgpu-info exit status"; }
grep -q '^libndgpu [0-9]' <<<"$out" || { echo "$out"; fail "no version line"; }
grep -q 'cpu:0' <<<"$out" || { echo "$out"; fail "no cpu:0 device"; }
grep -q '^GPU: ' <<<"$out" || { echo "$out"; fail "no GPU line"; }
path=$(sed -n 's/^  CPU path *//p' <<<"$out")
grep -Eq '^(avx512|avx2|baseline)' <<<"$path" || { echo "$out"; fail "no CPU path line"; }
low=$(ND_CPU_ISA=baseline "$bin" | sed -n 's/^  CPU path *//p')
grep -q '^baseline' <<<"$low" || fail "ND_CPU_ISA=baseline does not give the baseline path (got '$low')"
json=$("$bin" --json 2>&1) || { echo "$json"; fail "ndgpu-info --json exit status"; }
for key in '"version"' '"build_info"' '"backends"' '"cpu_path"' '"cuda"' '"devices"' '"memory_stats"'; do
  grep -qF "$key" <<<"$json" || fail "--json lacks $key"
done
if command -v python3 >/dev/null; then
  python3 -m json.tool <<<"$json" >/dev/null || { echo "$json"; fail "--json is not valid JSON"; }
  valid="valid JSON"
else
  valid="JSON not validated: no python3"
fi
"$bin" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "a bad option does not exit 2"
echo "test-tools: PASSED (ndgpu-info plain and --json, $valid; CPU path $path; $(grep '^GPU: ' <<<"$out"))"
