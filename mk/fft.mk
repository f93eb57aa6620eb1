# The FFT module against numpy.fft itself: every nd_fft*
# function through ctypes on the shared library, compared with NumPy 2's
# result on the same input (tests/test_fft_numpy.py; SKIPPED without
# python3 or NumPy 2). Part of `make test`.
#
#   make python-fft-test
.PHONY: python-fft-test
python-fft-test: $(BUILD)/libndgpu.so
	@if ! command -v python3 >/dev/null 2>&1; then echo "python-fft-test: SKIPPED (python3 not found)"; \
	else NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) python3 tests/test_fft_numpy.py; fi

extra-tests:: python-fft-test
