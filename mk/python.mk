# NumPy interop through the package python/ndgpu (examples/python/demo.py):
#   make python-test    DLPack and .npy round trips with NumPy (SKIPPED
#                       when python3 or NumPy is missing)
.PHONY: python-test
python-test: $(BUILD)/libndgpu.so
	@NDGPU_LIBRARY=$(abspath $(BUILD)/libndgpu.so) bash tests/test_python.sh

extra-tests:: python-test
