# The complex elementwise ops against NumPy itself: every op of
# the table through ctypes on the shared library, complex64 and complex128,
# random values and the special-value grid, compared with NumPy 2
# (tests/test_complex_numpy.py; SKIPPED without python3 or NumPy 2). Part
# of `make test`.
#
#   make python-complex-test
.PHONY: python-complex-test
python-complex-test: $(BUILD)/libndgpu.so
	@if ! command -v python3 >/dev/null 2>&1; then echo "python-complex-test: SKIPPED (python3 not found)"; \
	else NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) python3 tests/test_complex_numpy.py; fi

extra-tests:: python-complex-test
