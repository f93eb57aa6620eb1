#!/usr/bin/env bash
# Consumer test of `make install`:
#  1. install into a temporary DESTDIR (PREFIX=/usr/local) and check the
#     exact file list, the soname links and ndgpu.pc;
#     `make uninstall` then leaves no file behind;
#  2. install into a temporary PREFIX and build examples/quickstart.c with
#     nothing but `pkg-config --cflags --libs ndgpu` (PKG_CONFIG_PATH), against
#     the SHARED library (checked with readelf/ldd), run it with
#     LD_LIBRARY_PATH and check "quickstart: ok"; the same linked statically
#     (pkg-config --static, libndgpu.a); run the installed bin/ndgpu-info;
#     uninstall.
# Run from make (test-install), which passes MAKE, BUILD, WITH_CUDA and CC.
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
WITH_CUDA=${WITH_CUDA:-0}
cc=${CC:-cc}
if ! command -v pkg-config >/dev/null; then echo "test-install: SKIPPED (pkg-config not found)"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
prefix=/usr/local
fail() { echo "test-install: FAILED ($*)"; exit 1; }
# the core's exact file list with MPI=0; libndgpu_mpi's files are checked in 1c
mk() { $MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" MPI=0 DESTDIR="$stage" PREFIX="$prefix" "$@"; }

mk install > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "make install"; }

# 1. exactly the expected files, links and contents
(cd "$stage" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | sort) > "$tmp/files"
cat > "$tmp/want" <<LIST
$prefix/bin/ndgpu-info
$prefix/include/ndgpu.h
$prefix/lib/libndgpu.a
$prefix/lib/libndgpu.so
$prefix/lib/libndgpu.so.0
$prefix/lib/libndgpu.so.0.1.0
$prefix/lib/pkgconfig/ndgpu.pc
$prefix/share/man/man3/ndgpu.3
LIST
sort -o "$tmp/want" "$tmp/want"
diff -u "$tmp/want" "$tmp/files" || fail "installed file list differs (- expected, + installed)"
L=$stage$prefix/lib
[ "$(readlink "$L/libndgpu.so")" = libndgpu.so.0 ] || fail "libndgpu.so -> $(readlink "$L/libndgpu.so")"
[ "$(readlink "$L/libndgpu.so.0")" = libndgpu.so.0.1.0 ] || fail "libndgpu.so.0 -> $(readlink "$L/libndgpu.so.0")"
if command -v readelf >/dev/null; then
  grep -q 'SONAME.*\[libndgpu.so.0\]' <<<"$(readelf -d "$L/libndgpu.so.0.1.0")" || fail "soname is not libndgpu.so.0"
fi
cmp -s include/ndgpu.h "$stage$prefix/include/ndgpu.h" || fail "installed ndgpu.h differs"
pc=$L/pkgconfig/ndgpu.pc
grep -q "^prefix=$prefix\$" "$pc" || fail "ndgpu.pc: prefix is not $prefix"
grep -q '^Version: 0.1.0$' "$pc" || fail "ndgpu.pc: version"
grep -Eq '^(Requires.private: openblas|Libs.private: .*-l(openblas|scipy_openblas|blis))' "$pc" || fail "ndgpu.pc lacks the BLAS"
if [ "$WITH_CUDA" = 1 ]; then
  grep -q '^Libs.private: .*-lcudart' "$pc" && grep -q '^Libs.private: .*-lcublas' "$pc" && grep -q '^Libs.private: .*-lcusolver' "$pc" || fail "ndgpu.pc lacks the CUDA libraries"
else
  ! grep -q 'cudart' "$pc" || fail "ndgpu.pc names CUDA in a CPU-only build"
fi

# 1c. with libndgpu_mpi (when mpicc is here): its library, links and header
#     join the list, and uninstall removes them too
if command -v mpicc >/dev/null; then
  mstage=$tmp/mstage
  $MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" MPI=1 DESTDIR="$mstage" PREFIX="$prefix" install \
    > "$tmp/minstall.log" 2>&1 || { cat "$tmp/minstall.log"; fail "make MPI=1 install"; }
  for f in lib/libndgpu_mpi.a lib/libndgpu_mpi.so lib/libndgpu_mpi.so.0 lib/libndgpu_mpi.so.0.1.0 include/ndgpu_mpi.h; do
    [ -e "$mstage$prefix/$f" ] || fail "make MPI=1 install did not install $f"
  done
  cmp -s include/ndgpu_mpi.h "$mstage$prefix/include/ndgpu_mpi.h" || fail "installed ndgpu_mpi.h differs"
  $MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" MPI=1 DESTDIR="$mstage" PREFIX="$prefix" uninstall \
    > /dev/null 2>&1 || fail "make MPI=1 uninstall"
  left=$(find "$mstage" \( -type f -o -type l \) 2>/dev/null)
  [ -z "$left" ] || { echo "$left"; fail "make MPI=1 uninstall left files behind"; }
fi

# 1b. make uninstall removes every file it installed
mk uninstall > "$tmp/uninstall.log" 2>&1 || { cat "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(cd "$stage" && find . \( -type f -o -type l \))
[ -z "$left" ] || { echo "$left"; fail "make uninstall left files behind"; }

# 2. a consumer of an installed prefix: nothing but pkg-config
p=$tmp/prefix
$MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" PREFIX="$p" install > "$tmp/install2.log" 2>&1 ||
  { cat "$tmp/install2.log"; fail "make install PREFIX=$p"; }
export PKG_CONFIG_PATH=$p/lib/pkgconfig
pkg-config --exists ndgpu || fail "pkg-config does not find ndgpu"
[ "$(pkg-config --modversion ndgpu)" = 0.1.0 ] || fail "pkg-config --modversion"
cflags=$(pkg-config --cflags ndgpu); libs=$(pkg-config --libs ndgpu)
echo "test-install: pkg-config --cflags --libs ndgpu = $cflags $libs"

# 2a. shared (the linker prefers libndgpu.so), run with LD_LIBRARY_PATH
"$cc" -o "$tmp/quickstart" examples/quickstart.c $cflags $libs || fail "building quickstart.c (shared)"
if command -v readelf >/dev/null; then
  grep -q 'NEEDED.*\[libndgpu.so.0\]' <<<"$(readelf -d "$tmp/quickstart")" || fail "quickstart is not linked to libndgpu.so.0"
fi
if command -v ldd >/dev/null; then
  deps=$(LD_LIBRARY_PATH=$p/lib ldd "$tmp/quickstart" 2>&1 || true)
  grep -qF "$p/lib/libndgpu.so.0" <<<"$deps" || { echo "$deps"; fail "quickstart does not load the installed library"; }
fi
out=$(LD_LIBRARY_PATH=$p/lib "$tmp/quickstart" 2>&1) || { echo "$out"; fail "quickstart (shared) exit status"; }
grep -qF "quickstart: ok" <<<"$out" || { echo "$out"; fail "quickstart (shared) did not print 'quickstart: ok'"; }

# 2b. static: pkg-config --static, libndgpu.a chosen explicitly
slibs=$(pkg-config --static --libs ndgpu | sed 's/-lndgpu\b/-l:libndgpu.a/')
"$cc" -o "$tmp/quickstart_static" examples/quickstart.c $cflags $slibs || fail "building quickstart.c (static: $slibs)"
if command -v readelf >/dev/null; then
  ! grep -q 'libndgpu' <<<"$(readelf -d "$tmp/quickstart_static")" || fail "the static quickstart needs libndgpu.so"
fi
out=$("$tmp/quickstart_static" 2>&1) || { echo "$out"; fail "quickstart (static) exit status"; }
grep -qF "quickstart: ok" <<<"$out" || { echo "$out"; fail "quickstart (static) output"; }

# 2c. the installed tool runs
"$p/bin/ndgpu-info" > "$tmp/info.txt" 2>&1 || { cat "$tmp/info.txt"; fail "installed ndgpu-info"; }
grep -Eq '^  dtypes +bool .* complex64 complex128 \(15\)$' "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "ndgpu-info lists the 15 dtypes"; }
$MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" PREFIX="$p" uninstall > /dev/null 2>&1 || fail "make uninstall PREFIX=$p"
left=$(cd "$p" && find . \( -type f -o -type l \))
[ -z "$left" ] || { echo "$left"; fail "make uninstall PREFIX=$p left files behind"; }
echo "test-install: PASSED (8 files installed and uninstalled; quickstart built with pkg-config only, shared and static: 'quickstart: ok')"
