#!/usr/bin/env bash
# Pack what tools/gpu-check.sh runs on the GPU machine (make gpu-prep; the
# emulated device's pack: make gpu-check-emu):
#   bash tools/gpu-pack.sh BUILD PACK
# copies from BUILD the test binary, ndgpu-info, the two GPU examples and the
# benchmark binaries (host symbols stripped; the GPU code stays), the shared
# libraries they need that a GPU machine's image may lack (OpenBLAS and its
# Fortran runtime, OpenMP, Check, TBB for the emulated device: not glibc,
# not CUDA's own libraries, which the GPU machine has), and writes
# PACK/MANIFEST (commit, date, build). Prints the pack's size, the size of
# what travels with it (the tracked files) and the device-tool commands.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: tools/gpu-pack.sh BUILD PACK}
pack=${2:?usage: tools/gpu-pack.sh BUILD PACK}
limit_mib=${GPU_PACK_LIMIT:-64} # MiB; 0: no limit (a pack that is not carried)
emu=0
grep -q 'ND_CUDA_EMU' "$build/src/cuda/backend.d" 2>/dev/null && emu=1
[ -f "$build/tests/emu/cuda_runtime_emu.o" ] && emu=1
rm -rf "$pack"
mkdir -p "$pack/bin" "$pack/bench" "$pack/lib"
for f in tests/ndgpu_tests ndgpu-info examples/profile_training examples/train_mlp_amp; do
  [ -x "$build/$f" ] || { echo "gpu-pack: $build/$f is missing (make gpu-prep builds it)" >&2; exit 1; }
  cp "$build/$f" "$pack/bin/"
done
for f in "$build"/benchmarks/bench_*; do
  case $f in *.d|*.o) continue;; esac
  [ -x "$f" ] && cp "$f" "$pack/bench/"
done
[ -n "$(ls "$pack/bench")" ] || { echo "gpu-pack: no benchmark binaries in $build/benchmarks" >&2; exit 1; }
strip --strip-unneeded "$pack"/bin/* "$pack"/bench/* 2>/dev/null || true
# The host libraries outside glibc and CUDA that the binaries load.
for b in "$pack"/bin/* "$pack"/bench/*; do ldd "$b"; done 2>/dev/null \
  | sed -n 's/^[[:space:]]*\(lib[^ ]*\) => \(\/[^ ]*\) .*/\1 \2/p' | sort -u \
  | while read -r name path; do
      case $name in
        libopenblas*|liblapack*|libblas*|libgfortran*|libquadmath*|libgomp*|libcheck*|libsubunit*|libtbb*|libhwloc*)
          cp -L "$path" "$pack/lib/$name";;
      esac
    done
commit=$({ git rev-parse --short HEAD 2>/dev/null && { git diff --quiet HEAD 2>/dev/null || printf ' (+ uncommitted changes)'; }; } | tr -d '\n')
if [ "$emu" = 1 ]; then buildinfo="emulated GPU (HIP-CPU), $build"
else buildinfo="$(sed -n 's/.*-gencode \(arch=[^ ]*\).*/\1/p' "$build/.gpu-prep-flags" 2>/dev/null | head -n 1)"
  buildinfo="nvcc $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $(cat "$build/.gpu-prep-flags" 2>/dev/null || echo "flags unknown"), $build"
fi
{
  echo "commit=${commit:-unknown}"
  echo "built=$(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  echo "build=$buildinfo"
  echo "emulated=$emu"
  (cd "$pack" && find bin bench lib -type f -printf '%s %p\n' | sort -k2)
} >"$pack/MANIFEST"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
raw=$(du -sb "$pack" | cut -f1)
# The binaries each hold the library's GPU code (about 40 MiB for sm_90):
# xz with a 64 MiB dictionary stores it about once, some 14 times smaller;
# the pack travels as one pack.tar.xz (+ MANIFEST), which
# tools/gpu-check.sh unpacks on the GPU machine. GPU_PACK_XZ=0 (the
# emulated pack, which does not travel) leaves it unpacked.
if [ "${GPU_PACK_XZ:-$((1 - emu))}" = 1 ]; then
  t0=$(date +%s)
  tar -C "$pack" -cf - MANIFEST bin bench lib | xz -1 -T1 --lzma2=preset=1,dict=64MiB >"$pack/pack.tar.xz.part"
  rm -rf "$pack/bin" "$pack/bench" "$pack/lib"
  mv "$pack/pack.tar.xz.part" "$pack/pack.tar.xz"
  echo "gpu-pack: $(mib "$raw") of binaries and libraries packed into $pack/pack.tar.xz in $(( $(date +%s) - t0 )) s"
fi
size=$(du -sb "$pack" | cut -f1)
tree=$(git ls-files -z 2>/dev/null | xargs -0 -r du -cb 2>/dev/null | tail -n 1 | cut -f1)
tree=${tree:-0}
echo "gpu-pack: $pack: $(mib "$size") ($(grep -c ' bin/' "$pack/MANIFEST") programs, $(grep -c ' bench/' "$pack/MANIFEST") benchmarks, $(grep -c ' lib/' "$pack/MANIFEST") libraries)"
if [ "$emu" = 1 ]; then echo "gpu-pack: the emulated device's pack (make gpu-check-emu): it does not travel"
else echo "gpu-pack: with the tracked files ($(mib "$tree")) $(mib $((size + tree))) travel, of the device tool's 64 MiB"; fi
if [ "$emu" = 0 ] && [ "$limit_mib" -gt 0 ] && [ $((size + tree)) -gt $((limit_mib * 1048576)) ]; then
  echo "gpu-pack: TOO LARGE for the device tool: see docs/gpu-check.md" >&2
  exit 1
fi
