#!/usr/bin/env bash
# The backend table is the only door (src/core/backend.h): outside
# src/core/registry.c, no file of the core (src/*.c, src/*.h) may name a
# backend's function or data (nd__<backend>_*, for every backend directory
# src/<backend>/) or test a backend's build flag (ND_WITH_*). Comments and
# string literals do not count.
#
#   bash tools/check-doors.sh [srcdir]      (make check-doors; part of make test)
#
# Prints every offending line as file:line: text and exits 1, or prints
# "check-doors: OK (...)" and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-src}
registry="$src/core/registry.c"
backends=()
for d in "$src"/*/; do backends+=("$(basename "$d")"); done
if [ ${#backends[@]} -eq 0 ]; then echo "check-doors: FAILED (no backend directories under $src)"; exit 1; fi
alt=$(IFS='|'; echo "${backends[*]}")
pattern="\\bnd__($alt)_[A-Za-z0-9_]*|\\bND_WITH_[A-Z0-9_]+"
bad=0
nfiles=0
for f in "$src"/*.c "$src"/*.h; do
  [ "$f" = "$registry" ] && continue
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
  echo "check-doors: FAILED (the core reaches a backend by name or tests its build flag; go through"
  echo "  nd__backend(dev)->slot, src/core/backend.h, and keep ND_WITH_* in $registry)"
  exit 1
fi
echo "check-doors: OK ($nfiles core files, backends: ${backends[*]}; only $registry names them; only $src/cpu/isa.c reads the CPU's features)"
