#!/usr/bin/env bash
# The text doors of src/ (the rooms' include and symbol rules are checked on
# the objects by tools/layout.py --doors; make check-doors runs both):
#  - the backend table is the only door to a device (src/core/backend.h):
#    outside src/core/registry.c and the backend folders (src/cpu, src/cuda),
#    no file of the library names a backend's function or data
#    (nd__<backend>_*), tests a backend's build flag (ND_WITH_*) or names a
#    device type other than the host's (ND_DEVICE_CUDA: device identity and
#    capabilities are the registry's fields). src/mpi, a separate library
#    on the public API whose NCCL transport is CUDA's by definition, may
#    name ND_DEVICE_CUDA. Comments and string literals do not count.
#  - the CPU instruction set has one door (src/cpu/isa.h).
#
#   bash tools/check-doors.sh [srcdir]      (make check-doors; part of make test)
#
# Prints every offending line as file:line: text and exits 1, or prints
# "check-doors: OK (...)" and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-src}
registry="$src/core/registry.c"
# the backend folders: those with a descriptor source (src/<name>/backend.c, .cu, .cpp)
backends=()
for d in "$src"/*/; do compgen -G "${d}backend.c*" >/dev/null && backends+=("$(basename "$d")"); done
if [ ${#backends[@]} -eq 0 ]; then echo "check-doors: FAILED (no backend folder with a backend.c* file under $src)"; exit 1; fi
# the device types other than the host's, from the public enum (ND_DEVICE_*)
devtypes=$(grep -ohE '\bND_DEVICE_[A-Z0-9]+ *= *[0-9]+' include/ndgpu/core.h | sed 's/ *=.*//; s/ND_DEVICE_//' | grep -v '^CPU$' | paste -sd'|')
if [ -z "$devtypes" ]; then echo "check-doors: FAILED (no device types found in include/ndgpu/core.h)"; exit 1; fi
alt=$(IFS='|'; echo "${backends[*]}")
bad=0
nfiles=0
for f in $(find "$src" \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \) | sort); do
  [ "$f" = "$registry" ] && continue
  case "$f" in "$src"/cpu/*|"$src"/cuda/*) continue ;; esac
  pattern="\\bnd__($alt)_[A-Za-z0-9_]*|\\bND_WITH_[A-Z0-9_]+"
  case "$f" in "$src"/mpi/*) ;; *) pattern="$pattern|\\bND_DEVICE_($devtypes)\\b" ;; esac
  nfiles=$((nfiles + 1))
  # blank out comments and string/char literals, keeping the line count
  hits=$(perl -0777 -pe '
      s{/\*.*?\*/}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
      s{//[^\n]*}{}g;
      s{"(?:\\.|[^"\\\n])*"}{""}g;
      s{'"'"'(?:\\.|[^'"'"'\\\n])*'"'"'}{0}g;
    ' "$f" | grep -nE "$pattern" || true)
  if [ -n "$hits" ]; then
    while IFS= read -r line; do echo "$f:$line"; done <<<"$hits"
    bad=1
  fi
done
# The CPU instruction set has one door too (src/cpu/isa.h): no file of the
# library but src/cpu/isa.c asks the CPU what it has, and none forces an
# ISA on a whole file (the build stays portable; per-ISA code uses the
# ND_ISA_TARGET_* function attributes).
isa_hits=$(grep -rnE '__builtin_cpu_(supports|is)|#pragma GCC target|__get_cpuid|cpuid\(' "$src" --include=*.c --include=*.h \
           | grep -v "^$src/cpu/isa\.c:" || true)
if [ -n "$isa_hits" ]; then
  echo "$isa_hits"
  echo "check-doors: FAILED (ask nd__cpu_isa() in src/cpu/isa.h which instruction set to use)"
  exit 1
fi
if [ $bad -ne 0 ]; then
  echo "check-doors: FAILED (a file outside the backends reaches one by name, tests its build flag or its"
  echo "  device type; go through nd__backend(dev)->slot and the registry's fields, src/core/backend.h,"
  echo "  and keep ND_WITH_* in $registry)"
  exit 1
fi
echo "check-doors: OK ($nfiles files outside the backends (${backends[*]}); only $registry names them; only $src/cpu/isa.c reads the CPU's features)"
