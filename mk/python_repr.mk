# Printing arrays (python/ndgpu/_format.py) against NumPy's own repr/str:
# every dtype, summarised and wrapped layouts, the float digits (Dragon4),
# bfloat16, the bytes a summarised print copies to the host, format()
# (tests/test_ndgpu_repr.py; SKIPPED without python3 or NumPy >= 2.3).
# On the CPU, then on cuda:0 when the library has a GPU (the emulated one
# of a CUDA_EMU=1 build included). Part of `make test`.
#
#   make python-repr-test
.PHONY: python-repr-test
python-repr-test: $(BUILD)/libndgpu.so python-ext
	@if ! command -v python3 >/dev/null 2>&1; then echo "python-repr-test: SKIPPED (python3 not found)"; \
	else lib="$(abspath $(BUILD)/libndgpu.so)"; \
	  ND_DEVICE=cpu NDGPU_LIBRARY="$$lib" python3 tests/test_ndgpu_repr.py || exit 1; \
	  if NDGPU_LIBRARY="$$lib" PYTHONPATH=python python3 -c \
	       "import sys, ndgpu; sys.exit(ndgpu._lib.C.nd_cuda_device_count() < 1)" 2>/dev/null; then \
	    ND_DEVICE=cuda:0 NDGPU_LIBRARY="$$lib" python3 tests/test_ndgpu_repr.py || exit 1; fi; fi

extra-tests:: python-repr-test
