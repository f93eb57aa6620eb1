#!/bin/bash
# The Python package installed as a user installs it: in a fresh virtual
# environment (python3 -m venv --system-site-packages, so NumPy and
# scipy-openblas32 come from the system), first a wheel built as `make wheel`
# builds it (pip wheel ./python), then `pip install ./python`. Each time a
# script run from /tmp, without NDGPU_LIBRARY or PYTHONPATH, imports ndgpu,
# checks that it loads the libndgpu.so inside the installed package and the
# compiled module ndgpu._core, and computes (elementwise, sum, matmul
# through the BLAS, indexing, an error) against known values. Then the
# same with the bundled library's rpath to libscipy_openblas.so made
# useless, as in an environment other than the one that built it: the
# package finds the library through the scipy_openblas32 module.
#
#   NDGPU_LIBRARY=build/libndgpu.so bash tests/test_python_install.sh
#
# Prints SKIPPED (exit 0) where python3's venv or pip is missing, or where
# setuptools cannot build wheels here and pip cannot fetch the `wheel`
# module; FAILED (exit 1) otherwise on any problem. Run by make test
# (extra-tests, mk/python.mk: python-install-test).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
lib=${NDGPU_LIBRARY:-$ROOT/build/libndgpu.so}
say() { echo "python-install-test: $*"; }
if ! command -v "$PY" >/dev/null 2>&1; then say "SKIPPED ($PY not found)"; exit 0; fi
if ! "$PY" -c "import venv, ensurepip" >/dev/null 2>&1; then
    say "SKIPPED (no venv/ensurepip for $PY: apt-get install python3-venv)"; exit 0
fi
if [ ! -f "$lib" ]; then say "FAILED ($lib does not exist: run make lib)"; exit 1; fi
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log.txt
fail() { say "FAILED ($*)"; tail -25 "$log" 2>/dev/null | sed 's/^/    /'; exit 1; }

t0=$(date +%s)
"$PY" -m venv --system-site-packages "$tmp/venv" >"$log" 2>&1 || { say "SKIPPED (python3 -m venv failed)"; exit 0; }
V=$tmp/venv/bin/python
"$V" -m pip --version >/dev/null 2>&1 || { say "SKIPPED (no pip in the venv)"; exit 0; }
# pip --no-build-isolation builds with the venv's setuptools: it needs the
# wheel module (setuptools < 70.1 has no bdist_wheel of its own)
if ! "$V" -c "import setuptools, wheel" >/dev/null 2>&1 &&
   ! "$V" -c "import setuptools.command.bdist_wheel" >/dev/null 2>&1; then
    "$V" -m pip install -q wheel >>"$log" 2>&1 ||
        { say "SKIPPED (setuptools here cannot build wheels and pip could not install the wheel module)"; exit 0; }
fi

# what the installed package must do, from a directory outside the checkout
cat >"$tmp/check.py" <<'EOF'
import os, sys
import ndgpu as xp
import ndgpu._array as A
site = os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__)))
assert "site-packages" in site and not os.path.abspath(xp.__file__).startswith(sys.argv[1]), xp.__file__
assert os.path.dirname(xp.library_path) == os.path.dirname(xp.__file__), "library from %s" % xp.library_path
assert A._core is not None, "the compiled module is not in use: %s" % A.ext_error
assert os.path.dirname(A._core.__file__) == os.path.dirname(xp.__file__), A._core.__file__
x = xp.arange(10, dtype=xp.float32)
y = x * 2 + 1
assert y.dtype == xp.float32 and float(xp.sum(y)) == 100.0, y
assert int(x[3]) == 3 and x[2:5].tolist() == [2.0, 3.0, 4.0]
m = xp.asarray([[1.0, 2.0], [3.0, 4.0]]) @ xp.asarray([[5.0, 6.0], [7.0, 8.0]])  # the BLAS
assert m.tolist() == [[19.0, 22.0], [43.0, 50.0]], m
inv = xp.linalg.inv(xp.asarray([[2.0, 0.0], [0.0, 4.0]]))  # LAPACK
assert inv.tolist() == [[0.5, 0.0], [0.0, 0.25]], inv
try:
    x + xp.ones((3,))
    raise AssertionError("shape mismatch did not raise")
except ValueError as e:
    assert "broadcast" in str(e), e
print("ok: %s, ndgpu._core %s" % (xp.library_path, os.path.basename(A._core.__file__)))
EOF
run_check() {  # $1: what
    (cd "$tmp" && env -u NDGPU_LIBRARY -u PYTHONPATH -u NDGPU_NO_EXT "$V" check.py "$ROOT") >>"$log" 2>&1 ||
        fail "$1: the installed package does not import or compute"
    say "$1: $(tail -1 "$log")"
}

# 1. the wheel (as make wheel builds it)
NDGPU_LIBRARY=$lib "$V" -m pip wheel --no-build-isolation --no-deps -w "$tmp/dist" ./python >>"$log" 2>&1 ||
    fail "pip wheel ./python"
whl=$(ls "$tmp"/dist/ndgpu-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || fail "no wheel in $tmp/dist"
"$V" - "$whl" >>"$log" 2>&1 <<'EOF' || fail "the wheel lacks libndgpu.so or ndgpu/_core"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert "ndgpu/libndgpu.so" in names and any(n.startswith("ndgpu/_core") and n.endswith(".so") for n in names), names
EOF
"$V" -m pip install "$whl" >>"$log" 2>&1 || fail "pip install $(basename "$whl")"
run_check "wheel $(basename "$whl")"

# 2. pip install ./python
"$V" -m pip uninstall -y ndgpu >>"$log" 2>&1
NDGPU_LIBRARY=$lib "$V" -m pip install --no-build-isolation ./python >>"$log" 2>&1 || fail "pip install ./python"
run_check "pip install ./python"

# the dependency on scipy-openblas32 is declared when the library needs it
if command -v readelf >/dev/null 2>&1 && readelf -d "$lib" | grep -q 'NEEDED.*libscipy_openblas'; then
    "$V" -m pip show ndgpu 2>>"$log" | grep '^Requires:.*scipy-openblas32' >/dev/null ||
        fail "libndgpu.so needs libscipy_openblas.so but the package does not require scipy-openblas32"
fi

# 3. the bundled library with its rpath to libscipy_openblas.so made useless
inst=$("$V" -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('ndgpu').origin))")
"$V" - "$inst/libndgpu.so" >>"$log" 2>&1 <<'EOF'
import re, sys
p = sys.argv[1]
data = open(p, "rb").read()
# the rpath (DT_RUNPATH/DT_RPATH string) that leads to scipy_openblas32's lib/: same length, a path that is not there
m = re.search(rb"[^\0]*scipy_openblas32[^\0]*", data)
if m is None:
    print("no rpath into scipy_openblas32"); sys.exit(3)
bad = b"/nonexistent/" + b"x" * max(0, len(m.group(0)) - 13)
open(p, "wb").write(data[:m.start()] + bad[:len(m.group(0))] + data[m.end():])
EOF
rc=$?
if [ $rc = 3 ]; then
    say "the library has no rpath into scipy_openblas32: the preload path is not exercised"
elif [ $rc != 0 ]; then
    fail "could not rewrite the rpath of the installed library"
elif (cd "$tmp" && env -u LD_LIBRARY_PATH "$V" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$inst/libndgpu.so") \
        >/dev/null 2>&1; then
    say "the library loads without its rpath here (LD_LIBRARY_PATH or the system has libscipy_openblas.so): preload not exercised"
else
    run_check "without the rpath, libscipy_openblas.so through scipy_openblas32"
fi
say "PASSED ($(( $(date +%s) - t0 )) s)"
