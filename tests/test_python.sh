#!/bin/bash
# NumPy interop check: runs examples/python/demo.py with the package
# python/ndgpu (DLPack both ways without copies, .npy files both ways)
# against the shared library. Prints SKIPPED and exits 0 when python3 or
# NumPy is missing.
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
if NDGPU_LIBRARY=$lib python3 examples/python/demo.py &&
   NDGPU_LIBRARY=$lib PYTHONPATH=$PWD/python python3 tests/test_ndgpu_package.py; then
    echo "python-test: PASSED"
else
    echo "python-test: FAILED"
    exit 1
fi
