#!/bin/bash
# The Python package python/ndgpu against the shared library:
# examples/python/demo.py (NumPy interop: DLPack both ways without copies,
# .npy files both ways), tests/test_ndgpu_package.py with the compiled
# module ndgpu._core and again on the ctypes path (NDGPU_NO_EXT=1), and
# tests/test_python_ext.py (the C path against the ctypes path; required to
# run when python/ndgpu/_core*.so exists: make python-ext builds it first).
# Prints SKIPPED and exits 0 when python3 or NumPy is missing.
#
#   bash tests/test_python.sh                 (uses build/libndgpu.so)
#   NDGPU_LIBRARY=/path/libndgpu.so bash tests/test_python.sh
set -u
cd "$(dirname "$0")/.."
lib=${NDGPU_LIBRARY:-$PWD/build/libndgpu.so}
if ! command -v python3 >/dev/null 2>&1; then
    echo "python-test: SKIPPED (python3 not found)"
    exit 0
fi
if ! python3 -c "import numpy" >/dev/null 2>&1; then
    echo "python-test: SKIPPED (NumPy not importable)"
    exit 0
fi
if [ ! -e "$lib" ]; then
    echo "python-test: FAILED ($lib does not exist: run make lib)"
    exit 1
fi
require_ext=0
if compgen -G "python/ndgpu/_core*.so" >/dev/null; then
    require_ext=1
fi
export NDGPU_LIBRARY=$lib PYTHONPATH=$PWD/python
if python3 examples/python/demo.py &&
   python3 tests/test_ndgpu_package.py &&
   echo "python-test: again on the ctypes path (NDGPU_NO_EXT=1):" &&
   NDGPU_NO_EXT=1 python3 tests/test_ndgpu_package.py &&
   NDGPU_REQUIRE_EXT=$require_ext python3 tests/test_python_ext.py; then
    echo "python-test: PASSED"
else
    echo "python-test: FAILED"
    exit 1
fi
