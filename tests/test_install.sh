#!/usr/bin/env bash
# Consumer test of `make install`:
#  1. install into a temporary DESTDIR (PREFIX=/usr/local) and check the
#     exact file list (ndgpu.h and every family header include/ndgpu/*.h,
#     byte for byte), the soname links and ndgpu.pc;
#     `make uninstall` then leaves no file behind;
#  2. install into a temporary PREFIX and build examples/quickstart.c with
#     nothing but `pkg-config --cflags --libs ndgpu` (PKG_CONFIG_PATH), against
#     the SHARED library (checked with readelf/ldd), run it with
#     LD_LIBRARY_PATH and check "quickstart: ok"; the same linked statically
#     (pkg-config --static, libndgpu.a); run the installed bin/ndgpu-info;
#     uninstall;
#  3. in the same prefix, a CMake project (find_package(ndgpu CONFIG
#     REQUIRED), CMAKE_PREFIX_PATH only) builds quickstart.c against
#     ndgpu::ndgpu (shared) and ndgpu::ndgpu_static, and, where libndgpu_mpi
#     is installed, a small collective program against ndgpu::ndgpu_mpi
#     (run under mpirun -np 1); each runs and prints its line.
# Run from make (test-install), which passes MAKE, BUILD, WITH_CUDA, CC and
# BLAS_LIBS. cmake comes from `make deps` (tools/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
WITH_CUDA=${WITH_CUDA:-0}
cc=${CC:-cc}
if ! command -v pkg-config >/dev/null; then echo "test-install: SKIPPED (pkg-config not found)"; exit 0; fi
command -v cmake >/dev/null || { echo "test-install: FAILED (cmake not found: make deps installs it)"; exit 1; }
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
$(for h in include/ndgpu/*.h; do echo "$prefix/$h"; done)
$prefix/lib/libndgpu.a
$prefix/lib/libndgpu.so
$prefix/lib/libndgpu.so.0
$prefix/lib/libndgpu.so.0.1.0
$prefix/lib/cmake/ndgpu/ndgpuConfig.cmake
$prefix/lib/cmake/ndgpu/ndgpuConfigVersion.cmake
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
for h in include/ndgpu.h include/ndgpu/*.h; do
  cmp -s "$h" "$stage$prefix/$h" || fail "installed $h differs"
done
pc=$L/pkgconfig/ndgpu.pc
grep -q "^prefix=$prefix\$" "$pc" || fail "ndgpu.pc: prefix is not $prefix"
grep -q '^Version: 0.1.0$' "$pc" || fail "ndgpu.pc: version"
grep -Eq '^(Requires.private: openblas|Libs.private: .*-l(openblas|scipy_openblas|blis))' "$pc" || fail "ndgpu.pc lacks the BLAS"
if [ "$WITH_CUDA" = 1 ]; then
  grep -q '^Libs.private: .*-lcudart' "$pc" && grep -q '^Libs.private: .*-lcublas' "$pc" && grep -q '^Libs.private: .*-lcusolver' "$pc" || fail "ndgpu.pc lacks the CUDA libraries"
else
  ! grep -q 'cudart' "$pc" || fail "ndgpu.pc names CUDA in a CPU-only build"
fi
cm=$L/cmake/ndgpu/ndgpuConfig.cmake
grep -q 'add_library(ndgpu::ndgpu SHARED IMPORTED)' "$cm" || fail "ndgpuConfig.cmake lacks ndgpu::ndgpu"
grep -q "libndgpu.so.0.1.0" "$cm" || fail "ndgpuConfig.cmake does not name libndgpu.so.0.1.0"
for f in ${BLAS_LIBS:-}; do
  grep -qF -- "$f" "$cm" || fail "ndgpuConfig.cmake lacks the build's BLAS flag $f"
done
if [ "$WITH_CUDA" = 1 ]; then
  grep -q -- '-lcudart' "$cm" && grep -q -- '-lcusolver' "$cm" || fail "ndgpuConfig.cmake lacks the CUDA libraries"
else
  ! grep -q 'cudart' "$cm" || fail "ndgpuConfig.cmake names CUDA in a CPU-only build"
fi

# 1c. with libndgpu_mpi (when mpicc is here): its library, links and header
#     join the list, and uninstall removes them too
if command -v mpicc >/dev/null; then
  mstage=$tmp/mstage
  $MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" MPI=1 DESTDIR="$mstage" PREFIX="$prefix" install \
    > "$tmp/minstall.log" 2>&1 || { cat "$tmp/minstall.log"; fail "make MPI=1 install"; }
  for f in lib/cmake/ndgpu/ndgpuConfig.cmake lib/libndgpu_mpi.a lib/libndgpu_mpi.so lib/libndgpu_mpi.so.0 lib/libndgpu_mpi.so.0.1.0 include/ndgpu_mpi.h; do
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
# 3. a CMake consumer of the same prefix: find_package(ndgpu CONFIG REQUIRED)
cdir=$tmp/cmake-consumer
mkdir -p "$cdir"
cp examples/quickstart.c "$cdir/"
have_mpi=0
[ -e "$p/lib/libndgpu_mpi.so" ] && have_mpi=1
cat > "$cdir/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(ndgpu_consumer C)
option(WITH_MPI "also build against ndgpu::ndgpu_mpi" OFF)
if(WITH_MPI)
  find_package(ndgpu 0.1 CONFIG REQUIRED COMPONENTS mpi)
else()
  find_package(ndgpu 0.1 CONFIG REQUIRED)
endif()
message(STATUS "ndgpu ${ndgpu_VERSION} from ${ndgpu_DIR}")
add_executable(quickstart quickstart.c)
target_link_libraries(quickstart PRIVATE ndgpu::ndgpu)
add_executable(quickstart_static quickstart.c)
target_link_libraries(quickstart_static PRIVATE ndgpu::ndgpu_static)
if(WITH_MPI)
  add_executable(comm_size comm_size.c)
  target_link_libraries(comm_size PRIVATE ndgpu::ndgpu_mpi)
endif()
CMAKE
cat > "$cdir/comm_size.c" <<'C'
#include <ndgpu_mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nd_comm *comm = NULL;
    if (nd_comm_create(&comm, MPI_COMM_WORLD) != ND_OK) { fprintf(stderr, "%s\n", nd_last_error()); MPI_Abort(MPI_COMM_WORLD, 1); }
    printf("comm_size: %d process(es) ok\n", nd_comm_size(comm));
    nd_comm_destroy(comm);
    MPI_Finalize();
    return 0;
}
C
cmake -S "$cdir" -B "$cdir/build" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_COMPILER="$cc" -DWITH_MPI=$have_mpi \
  > "$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "cmake configure with find_package(ndgpu CONFIG REQUIRED)"; }
grep -qF "ndgpu 0.1.0 from $p/lib/cmake/ndgpu" "$tmp/cmake.log" || { cat "$tmp/cmake.log"; fail "cmake found another ndgpu"; }
cmake --build "$cdir/build" > "$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; fail "cmake --build of the consumer"; }
if command -v readelf >/dev/null; then
  grep -q 'NEEDED.*\[libndgpu.so.0\]' <<<"$(readelf -d "$cdir/build/quickstart")" || fail "CMake quickstart is not linked to libndgpu.so.0"
  ! grep -q 'libndgpu' <<<"$(readelf -d "$cdir/build/quickstart_static")" || fail "CMake quickstart_static needs libndgpu.so"
fi
for b in quickstart quickstart_static; do
  out=$("$cdir/build/$b" 2>&1) || { echo "$out"; fail "CMake $b exit status"; }
  grep -qF "quickstart: ok" <<<"$out" || { echo "$out"; fail "CMake $b did not print 'quickstart: ok'"; }
done
cmake_what="ndgpu::ndgpu and ndgpu::ndgpu_static"
if [ $have_mpi = 1 ]; then
  mflags=(-np 1)
  [ "$(id -u)" -eq 0 ] && mflags+=(--allow-run-as-root)
  out=$(timeout 120 "${MPIRUN:-mpirun}" "${mflags[@]}" "$cdir/build/comm_size" 2>&1) || { echo "$out"; fail "CMake comm_size (ndgpu::ndgpu_mpi) under mpirun"; }
  grep -qF "comm_size: 1 process(es) ok" <<<"$out" || { echo "$out"; fail "CMake comm_size output"; }
  cmake_what="$cmake_what, ndgpu::ndgpu_mpi"
fi

$MAKE --no-print-directory -s BUILD="$BUILD" CUDA="$WITH_CUDA" PREFIX="$p" uninstall > /dev/null 2>&1 || fail "make uninstall PREFIX=$p"
left=$(cd "$p" && find . \( -type f -o -type l \))
[ -z "$left" ] || { echo "$left"; fail "make uninstall PREFIX=$p left files behind"; }
echo "test-install: PASSED ($(wc -l < "$tmp/want") files installed and uninstalled; quickstart built with pkg-config only and with CMake ($cmake_what), shared and static: 'quickstart: ok')"
