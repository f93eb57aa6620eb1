# The Python package python/ndgpu (docs/python.md):
#   make python-ext     its compiled module ndgpu._core (python/ndgpu/_core.c:
#                       the operators, binop/unop, basic indexing in C), built
#                       in place for the checkout as python/ndgpu/_core.abi3.so
#                       (the stable ABI); SKIPPED where Python's headers are
#                       missing (the package then runs its ctypes path)
#   make python-test    NumPy interop (examples/python/demo.py: DLPack and .npy
#                       round trips), the package's tests with the compiled
#                       module and again without it (NDGPU_NO_EXT=1), and the
#                       C path against the ctypes path (SKIPPED when python3
#                       or NumPy is missing)
#   make wheel          a wheel of the package, libndgpu.so inside, in dist/
#   make python-install-test  pip install ./python into a fresh venv, then
#                       import and compute from /tmp without NDGPU_LIBRARY
#                       (tests/test_python_install.sh; SKIPPED without
#                       pip/venv)
PYTHON ?= python3
PY_INCLUDE := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
# The stable ABI of 3.10 where the Python is 3.10 or newer (METH_FASTCALL for
# binop/unop), else 3.8's; the same choice as python/setup.py
PY_LIMITED_API := $(shell $(PYTHON) -c 'import sys; print("0x030a0000" if sys.version_info >= (3, 10) else "0x03080000")' 2>/dev/null)
PY_EXT := python/ndgpu/_core.abi3.so
PY_EXT_CFLAGS := -std=c11 -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror

.PHONY: python-ext
ifneq ($(wildcard $(PY_INCLUDE)/Python.h),)
python-ext: $(PY_EXT)
	@:
else
python-ext:
	@echo "python-ext: SKIPPED (no Python.h for $(PYTHON): apt-get install python3-dev; the package runs its ctypes path)"
endif

# a version-specific build (setup.py build_ext --inplace with the full API)
# would be imported before the .abi3.so: removed
$(PY_EXT): python/ndgpu/_core.c include/ndgpu.h $(wildcard include/ndgpu/*.h)
	$(CC) $(PY_EXT_CFLAGS) -I"$(PY_INCLUDE)" -Iinclude -DNDGPU_HAVE_HEADERS -DPy_LIMITED_API=$(PY_LIMITED_API) \
	  $< -o $@ -ldl
	@rm -f python/ndgpu/_core.cpython-*.so

.PHONY: python-test
python-test: $(BUILD)/libndgpu.so python-ext
	@NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) bash tests/test_python.sh

# pip wheel without build isolation where setuptools can build wheels here
# (the wheel module, or setuptools >= 70.1), else with it (pip fetches them)
PY_WHEEL_ISOLATION = $(shell $(PYTHON) -c 'import setuptools, wheel' 2>/dev/null && echo --no-build-isolation)
.PHONY: wheel
wheel: $(BUILD)/libndgpu.so
	NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) $(PYTHON) -m pip wheel --no-deps $(PY_WHEEL_ISOLATION) \
	  -w dist ./python
	@ls -1 dist/ndgpu-*.whl

.PHONY: python-install-test
python-install-test: $(BUILD)/libndgpu.so
	@NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) PYTHON=$(PYTHON) bash tests/test_python_install.sh

extra-tests:: python-test python-install-test
