# Real clients of the array API on ndgpu arrays (tests/test_clients.py):
# scikit-learn (array_api_dispatch=True) and SciPy (SCIPY_ARRAY_API=1) on
# ndgpu arrays against NumPy's results, each check beside array-api-strict
# (a table: check, strict, ndgpu). SKIPPED when scikit-learn, SciPy or
# array-api-strict is not importable:
#   python3 -m pip install scipy scikit-learn array-api-strict
#
#   make python-clients-test      ndgpu on the CPU ($(BUILD)/libndgpu.so);
#                                 part of `make test`
#   make python-clients-test-emu  ndgpu on the emulated cuda:0 ($(EMU_BUILD),
#                                 mk/emu.mk): the paths that convert through
#                                 NumPy refuse there, as on CuPy (expected);
#                                 run by `make array-api-test-emu`
# CLIENTS_ARGS passes arguments to the script (e.g. CLIENTS_ARGS="-k pca -v").
CLIENTS_PYTHON ?= python3
CLIENTS_ARGS ?=

.PHONY: python-clients-test python-clients-test-emu
python-clients-test: $(BUILD)/libndgpu.so python-ext
	@ND_DEVICE=cpu NDGPU_LIBRARY="$(abspath $(BUILD)/libndgpu.so)" PYTHONPATH="$(abspath python)" \
	  $(CLIENTS_PYTHON) tests/test_clients.py $(CLIENTS_ARGS)

python-clients-test-emu: python-ext
	@$(MAKE) --no-print-directory BUILD=$(EMU_BUILD) CUDA_EMU=1 $(EMU_BUILD)/libndgpu.so >/dev/null
	@ND_DEVICE=cuda:0 NDGPU_LIBRARY="$(abspath $(EMU_BUILD)/libndgpu.so)" PYTHONPATH="$(abspath python)" \
	  $(CLIENTS_PYTHON) tests/test_clients.py $(CLIENTS_ARGS)

extra-tests:: python-clients-test
# the emulated-device Python checks (mk/array_api.mk) run it first
array-api-test-emu: python-clients-test-emu
