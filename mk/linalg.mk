# numpy.linalg's decompositions against NumPy itself: solve,
# inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, eig,
# eigvals, lstsq, pinv, matrix_rank and cond through ctypes on the shared
# library, compared with NumPy 2 on the same random inputs
# (tests/test_linalg_numpy.py; SKIPPED without python3 or NumPy 2). Part of
# `make test`. NDGPU_LA_CUDA=1 also runs it on cuda:0 when the library has a
# usable GPU (e.g. BUILD=build-emu CUDA_EMU=1: the emulated device).
#
#   make python-linalg-test
#   make python-linalg-test NDGPU_LA_CUDA=1 BUILD=build-emu CUDA_EMU=1
.PHONY: python-linalg-test
python-linalg-test: $(BUILD)/libndgpu.so
	@if ! command -v python3 >/dev/null 2>&1; then echo "python-linalg-test: SKIPPED (python3 not found)"; \
	else NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) python3 tests/test_linalg_numpy.py; fi

extra-tests:: python-linalg-test
