#!/usr/bin/env bash
# The shared library must export exactly the public API: every function
# declared with ND_API in include/ndgpu.h and the family headers it
# includes, include/ndgpu/*.h (including the wrappers the X-macro op tables
# generate: nd_add, nd_exp, nd_sum, ...) and nothing else (no internal
# nd__* helpers, no bundled third-party symbols).
#
#   bash tests/test_symbols.sh [build/libndgpu.so] [include/ndgpu.h]
#
# The umbrella header is preprocessed (cc -E -P) so that macro-generated
# declarations are seen; ND_API expands to visibility("default"), which
# marks the declarations to collect. Fails listing the extra and missing
# symbols. Before that, the family headers themselves: each one under
# include/ndgpu/ must be included by the umbrella (or its declarations
# would be missed here and by users) and compile on its own (C and C++).
set -euo pipefail
cd "$(dirname "$0")/.."
lib=${1:-build/libndgpu.so}
hdr=${2:-include/ndgpu.h}
cc=${CC:-cc}
if [ ! -e "$lib" ]; then echo "test-symbols: FAILED ($lib does not exist: run make lib)"; exit 1; fi
if ! command -v nm >/dev/null; then echo "test-symbols: SKIPPED (nm not found)"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The family headers: reached from the umbrella, and each usable alone.
fam_dir=$(dirname "$hdr")/ndgpu
for h in "$fam_dir"/*.h; do
  n=ndgpu/$(basename "$h")
  grep -q "^#include \"$n\"" "$hdr" || { echo "test-symbols: FAILED ($hdr does not include $n)"; exit 1; }
  printf '#include "%s"\n' "$n" > "$tmp/alone.c"
  "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$(dirname "$hdr")" "$tmp/alone.c" ||
    { echo "test-symbols: FAILED ($n does not compile on its own)"; exit 1; }
  if command -v "${CXX:-c++}" >/dev/null; then
    "${CXX:-c++}" -Wall -Wextra -Werror -fsyntax-only -x c++ -I"$(dirname "$hdr")" "$tmp/alone.c" ||
      { echo "test-symbols: FAILED ($n does not compile on its own as C++)"; exit 1; }
  fi
done

# Declarations: join the preprocessed header into one line per statement and
# keep those carrying the default-visibility attribute; the function name is
# the last identifier followed by '(' (parameters hold no function pointers).
"$cc" -E -P -x c "$hdr" | tr '\n' ' ' | sed 's/;/;\n/g' |
  grep 'visibility *( *"default" *)' |
  sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\1/' | sort -u > "$tmp/declared"
# Defined dynamic symbols of any kind (functions and data).
nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u > "$tmp/exported"

nd=$(wc -l < "$tmp/declared"); ne=$(wc -l < "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ "$nd" -lt 100 ]; then
  echo "test-symbols: FAILED (only $nd ND_API declarations parsed from $hdr: the parser is broken)"; exit 1
fi
fail=0
if [ -n "$extra" ]; then
  echo "test-symbols: exported but not declared with ND_API in $hdr:"; sed 's/^/  /' <<<"$extra"; fail=1
fi
if [ -n "$missing" ]; then
  echo "test-symbols: declared with ND_API but not exported by $lib:"; sed 's/^/  /' <<<"$missing"; fail=1
fi
if [ $fail -ne 0 ]; then echo "test-symbols: FAILED"; exit 1; fi
echo "test-symbols: PASSED ($ne exported symbols = $nd ND_API declarations)"
