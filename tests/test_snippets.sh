#!/usr/bin/env bash
# Every C snippet of README.md and docs/*.md compiles and runs.
#
# A fenced block that opens with ```c is a snippet (```sh, ```python and
# plain ``` blocks are not). Each is written to its own file and built with
# the build's compiler flags (-std=c11 -Wall -Wextra -Werror, except the
# unused-variable warnings: a snippet may declare more than it uses) against
# the build's libndgpu.so, then run; it passes when it exits with status 0
# (snippets check what they claim with assert()).
#
#   - A block that defines main() is a whole program and is compiled as it is.
#   - Any other block is the body of main(), wrapped as
#         #include <ndgpu.h>  (+ assert.h, math.h, stdio.h, stdlib.h, string.h)
#         int main(int argc, char **argv) { <the block> return 0; }
#     so a snippet declares what it uses and releases what it creates.
#   - A block that includes <ndgpu_mpi.h> is compiled with mpicc, linked with
#     libndgpu_mpi too and run under `mpirun -np 1`; SKIPPED where mpicc or
#     libndgpu_mpi is missing.
#
# Usage (make test-snippets passes BUILD and CC):
#   bash tests/test_snippets.sh [file.md ...]    (default: README.md docs/*.md)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cc=${CC:-cc}
MPICC=${MPICC:-$(command -v mpicc || true)}
MPIRUN=${MPIRUN:-$(command -v mpirun || echo mpirun)}
cflags="-std=c11 -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-but-set-variable -Wno-unused-parameter -D_GNU_SOURCE -Iinclude ${SNIPPET_CFLAGS:-}"
lib=$(cd "$BUILD" && pwd)
[ -e "$lib/libndgpu.so" ] || { echo "test-snippets: FAILED ($BUILD/libndgpu.so not built)"; exit 1; }
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(README.md docs/*.md)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Split the blocks out: $tmp/NNN.c, and $tmp/NNN.where = "file:line".
awk -v dir="$tmp" '
  FNR == 1 { inblk = 0 }
  /^```c[[:space:]]*$/ && !inblk { inblk = 1; n++; f = sprintf("%s/%03d.c", dir, n);
                                  printf "%s:%d\n", FILENAME, FNR + 1 > sprintf("%s/%03d.where", dir, n);
                                  printf "" > f; next }
  /^```/ && inblk { inblk = 0; close(f); next }
  inblk { print > f }
' "${files[@]}"

export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
pass=0 skip=0 fail=0
# body FILE.c WHERE: the block as the body of a function named $2 (line numbers kept)
body() {
  local file=${2%:*} line=${2##*:}
  printf 'static int %s(int argc, char **argv)\n{\n(void)argc; (void)argv;\n#line %d "%s"\n' "$3" "$line" "$file"
  grep -Ev '^[[:space:]]*#include' "$1" | sed 's/^[[:space:]]*#line/#line/'
  printf '\nreturn 0;\n}\n'
}
head='#include <ndgpu.h>
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>'
build() { # build SRC OUT [extra...]: compile and link one program
  local src=$1 out=$2; shift 2
  # shellcheck disable=SC2086 # flags split on spaces
  "$compiler" $cflags -o "$out" "$src" -L"$lib" "$@" -lndgpu -Wl,-rpath,"$lib" -lm > "$out.log" 2>&1
}
report_run() { # report_run WHERE OUTFILE STATUS
  if [ "$3" -ne 0 ]; then
    echo "snippet $1: FAILED (exit status $3)"; sed 's/^/  /' "$2" | tail -n 20; fail=$((fail + 1))
  else pass=$((pass + 1)); fi
}

# The plain snippets (no main, no MPI) become functions of one program,
# compiled once; each then runs in its own process (argv[1] picks it).
plain=() whole=() mpi=()
for src in "$tmp"/*.c; do
  [ -e "$src" ] || continue
  if grep -q 'ndgpu_mpi\.h' "$src"; then mpi+=("$src")
  elif grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$src"; then whole+=("$src")
  else plain+=("$src"); fi
done
compiler=$cc
if [ ${#plain[@]} -gt 0 ]; then
  all=$tmp/all.c
  {
    echo "$head"
    cat "${plain[@]}" | grep -E '^[[:space:]]*#include' | sort -u
    for src in "${plain[@]}"; do body "$src" "$(cat "${src%.c}.where")" "snippet_$(basename "${src%.c}")"; done
    echo 'int main(int argc, char **argv)'
    echo '{'
    for src in "${plain[@]}"; do
      n=$(basename "${src%.c}")
      echo "    if (argc > 1 && strcmp(argv[1], \"$n\") == 0) return snippet_$n(argc, argv);"
    done
    echo '    return 2;'
    echo '}'
  } > "$all"
  if build "$all" "$tmp/all"; then
    for src in "${plain[@]}"; do
      n=$(basename "${src%.c}")
      rc=0; { (cd "$tmp" && timeout 60 "$tmp/all" "$n") > "$tmp/$n.out" 2>&1; } 2>/dev/null || rc=$?
      report_run "$(cat "$tmp/$n.where")" "$tmp/$n.out" $rc
    done
  else
    # find the snippets that do not compile, one by one
    for src in "${plain[@]}"; do
      n=$(basename "${src%.c}") where=$(cat "${src%.c}.where")
      { echo "$head"; grep -E '^[[:space:]]*#include' "$src"; body "$src" "$where" "snippet"
        echo 'int main(int argc, char **argv) { return snippet(argc, argv); }'; } > "$tmp/$n.one.c"
      if build "$tmp/$n.one.c" "$tmp/$n.one"; then
        rc=0; { (cd "$tmp" && timeout 60 "$tmp/$n.one") > "$tmp/$n.out" 2>&1; } 2>/dev/null || rc=$?
        report_run "$where" "$tmp/$n.out" $rc
      else
        echo "snippet $where: FAILED (does not compile)"; sed 's/^/  /' "$tmp/$n.one.log" | grep -v 'In function' | head -n 20
        fail=$((fail + 1))
      fi
    done
  fi
fi

# Whole programs, and the MPI snippets (whole or wrapped) under mpirun -np 1.
for src in "${whole[@]}" "${mpi[@]}"; do
  [ -n "$src" ] || continue
  n=$(basename "${src%.c}") where=$(cat "${src%.c}.where")
  run=() extra=() compiler=$cc
  if grep -q 'ndgpu_mpi\.h' "$src"; then
    if [ -z "$MPICC" ] || [ ! -e "$lib/libndgpu_mpi.so" ]; then
      echo "snippet $where: SKIPPED (needs mpicc and libndgpu_mpi)"; skip=$((skip + 1)); continue
    fi
    compiler=$MPICC extra=(-lndgpu_mpi) run=("$MPIRUN" -np 1)
    [ "$(id -u)" -eq 0 ] && run+=(--allow-run-as-root)
  fi
  if grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$src"; then
    { printf '#line %d "%s"\n' "${where##*:}" "${where%:*}"; cat "$src"; } > "$tmp/$n.one.c"
  else
    { echo "$head"; grep -E '^[[:space:]]*#include' "$src"; body "$src" "$where" "snippet"
      echo 'int main(int argc, char **argv) { return snippet(argc, argv); }'; } > "$tmp/$n.one.c"
  fi
  if ! build "$tmp/$n.one.c" "$tmp/$n.one" "${extra[@]}"; then
    echo "snippet $where: FAILED (does not compile)"; sed 's/^/  /' "$tmp/$n.one.log" | grep -v 'In function' | head -n 20
    fail=$((fail + 1)); continue
  fi
  rc=0; { (cd "$tmp" && timeout 60 "${run[@]}" "$tmp/$n.one") > "$tmp/$n.out" 2>&1; } 2>/dev/null || rc=$?
  report_run "$where" "$tmp/$n.out" $rc
done
total=$((pass + skip + fail))
if [ $fail -gt 0 ]; then
  echo "test-snippets: FAILED ($fail of $total C snippets; each failure above names its file and line)"; exit 1
fi
echo "test-snippets: PASSED ($pass C snippets of README.md and docs/ compiled and run$([ $skip -gt 0 ] && echo ", $skip skipped"))"
