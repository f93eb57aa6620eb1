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
# the BLAS line names library, version, origin and kernel core; the warning
# line appears exactly when that core is generic on an AVX2/AVX-512 CPU
blas=$(sed -n 's/^  BLAS *//p' <<<"$out")
grep -Eq '^(OpenBLAS|BLIS) [0-9][^ ]* \([^,]+, core [^ ,)]+' <<<"$blas" || { echo "$out"; fail "BLAS line '$blas'"; }
want_warn=0
if grep -q 'generic kernels' <<<"$blas" && grep -Eq '(^|has )avx(2|512)' <<<"$path"; then want_warn=1; fi
got_warn=0; grep -q '^warning: the BLAS runs generic kernels' <<<"$out" && got_warn=1
[ $want_warn = $got_warn ] || { echo "$out"; fail "BLAS warning line: expected $want_warn, got $got_warn"; }
# OPENBLAS_CORETYPE forcing an AVX2 core on an AVX-512 CPU gets its own
# warning (OpenBLAS only: BLIS ignores the variable)
if grep -q '^OpenBLAS' <<<"$blas"; then
  forced=$(OPENBLAS_CORETYPE=Haswell "$bin" 2>&1)
  fblas=$(sed -n 's/^  BLAS *//p' <<<"$forced")
  want_warn=0
  if grep -q 'core Haswell' <<<"$fblas" && grep -Eq '^avx512' <<<"$path"; then want_warn=1; fi
  got_warn=0; grep -q '^warning: OPENBLAS_CORETYPE=Haswell makes the BLAS run its Haswell kernels' <<<"$forced" && got_warn=1
  [ $want_warn = $got_warn ] || { echo "$forced"; fail "OPENBLAS_CORETYPE=Haswell warning line: expected $want_warn, got $got_warn"; }
  auto=$(env -u OPENBLAS_CORETYPE "$bin" 2>&1)
  ! grep -q '^warning: OPENBLAS_CORETYPE' <<<"$auto" || { echo "$auto"; fail "a core warning without OPENBLAS_CORETYPE"; }
fi
low=$(ND_CPU_ISA=baseline "$bin" | sed -n 's/^  CPU path *//p')
grep -q '^baseline' <<<"$low" || fail "ND_CPU_ISA=baseline does not give the baseline path (got '$low')"
json=$("$bin" --json 2>&1) || { echo "$json"; fail "ndgpu-info --json exit status"; }
for key in '"version"' '"build_info"' '"backends"' '"cpu_path"' '"blas"' '"blas_warning"' '"cuda"' '"devices"' '"memory_stats"'; do
  grep -qF "$key" <<<"$json" || fail "--json lacks $key"
done
if command -v python3 >/dev/null; then
  python3 -m json.tool <<<"$json" >/dev/null || { echo "$json"; fail "--json is not valid JSON"; }
  valid="valid JSON"
else
  valid="JSON not validated: no python3"
fi
"$bin" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "a bad option does not exit 2"
echo "test-tools: PASSED (ndgpu-info plain and --json, $valid; CPU path $path; BLAS $blas; $(grep '^GPU: ' <<<"$out"))"
