# The Python array API package (python/ndgpu) against the
# official conformance suite (data-apis/array-api-tests, unpacked offline in
# $(AAT_SRC); its ORIGIN.md says which commit).
#
#   make array-api-test      the suite with ndgpu on the CPU (ND_DEVICE=cpu,
#                            $(BUILD)/libndgpu.so) for each API version in
#                            AAT_VERSIONS, then again with the emulated GPU as
#                            the default device (ND_DEVICE=cuda:0, the
#                            $(EMU_BUILD) library) when HIP-CPU is there
#                            (AAT_EMU=0 leaves that out); prints the pass /
#                            fail / skip counts of every run and fails on any
#                            failure not listed in $(AAT_XFAILS)
#   make array-api-test-cpu  only the CPU runs
#   make array-api-test-emu  only the emulated-device runs
#
# Fixed Hypothesis seed (AAT_SEED) and --max-examples (AAT_MAX_EXAMPLES),
# sized for CI; the deadline is off (a loaded CI machine is slow, not wrong).
# Needs the PyPI packages pytest, hypothesis, ndindex and pytest-json-report
# (the suite's conftest imports it):
#   python3 -m pip install pytest hypothesis ndindex pytest-json-report
# AAT_ARGS passes more pytest arguments (e.g. AAT_ARGS="-k test_sort -x").
AAT_SRC ?= ../shared/array-api-tests
AAT_VERSIONS ?= 2023.12 2024.12
AAT_MAX_EXAMPLES ?= 20
AAT_SEED ?= 0
AAT_XFAILS ?= tests/array_api_xfails.txt
AAT_PYTHON ?= python3
AAT_EMU ?= 1
AAT_ARGS ?=

# $(call aat_run,DEVICE,LIBRARY): the suite for each version; the counts of
# each run on one line; exit status 1 when a run had unexpected failures.
define aat_run
set -eo pipefail; \
if ! $(AAT_PYTHON) -c "import pytest, hypothesis, ndindex, pytest_jsonreport" 2>/dev/null; then \
  echo "array-api-test: needs the PyPI packages pytest hypothesis ndindex pytest-json-report:" >&2; \
  echo "  $(AAT_PYTHON) -m pip install pytest hypothesis ndindex pytest-json-report" >&2; exit 1; fi; \
if [ ! -d "$(AAT_SRC)/array_api_tests" ]; then \
  echo "array-api-test: the suite is not at $(AAT_SRC) (AAT_SRC=path/to/array-api-tests)" >&2; exit 1; fi; \
tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
cp -r "$(AAT_SRC)/." "$$tmp/aat"; \
status=0; \
for v in $(AAT_VERSIONS); do \
  log="$$tmp/log-$$v.txt"; t0=$$(date +%s); \
  if (cd "$$tmp/aat" && ND_DEVICE=$(1) NDGPU_LIBRARY="$(abspath $(2))" PYTHONPATH="$(abspath python)" \
      ARRAY_API_TESTS_MODULE=ndgpu ARRAY_API_TESTS_VERSION=$$v \
      $(AAT_PYTHON) -m pytest array_api_tests -q -rfE -p no:cacheprovider --disable-warnings \
        --max-examples $(AAT_MAX_EXAMPLES) --hypothesis-seed=$(AAT_SEED) --hypothesis-disable-deadline \
        --xfails-file "$(abspath $(AAT_XFAILS))" $(AAT_ARGS)) > "$$log" 2>&1; then ok=1; else ok=0; status=1; fi; \
  summary=$$(grep -E '[0-9]+ (passed|failed|skipped|xfailed|xpassed|deselected|errors?)' "$$log" | tail -1 | sed 's/=//g; s/^ *//; s/ *$$//' || true); \
  echo "array-api-test: ndgpu on $(1), API $$v, --max-examples $(AAT_MAX_EXAMPLES), seed $(AAT_SEED): $${summary:-no summary} ($$(( $$(date +%s) - t0 )) s)"; \
  if [ $$ok = 0 ]; then \
    echo "array-api-test: unexpected failures (not in $(AAT_XFAILS)):"; \
    grep -E '^(FAILED|ERROR) ' "$$log" || tail -40 "$$log"; fi; \
done; \
exit $$status
endef

.PHONY: array-api-test array-api-test-cpu array-api-test-emu
array-api-test: array-api-test-cpu
	@if [ "$(AAT_EMU)" != 0 ] && [ -f "$(HIPCPU)/include/hip/hip_runtime.h" ]; then \
	  $(MAKE) --no-print-directory array-api-test-emu; \
	elif [ "$(AAT_EMU)" != 0 ]; then \
	  echo "array-api-test: the emulated-device runs SKIPPED (HIP-CPU not at $(HIPCPU))"; fi

# tests/test_ndgpu_package.py first: DLPack with NumPy, weak scalars, devices,
# errors, linalg/fft against NumPy (what the suite does not look at)
array-api-test-cpu: $(BUILD)/libndgpu.so python-ext
	@ND_DEVICE=cpu NDGPU_LIBRARY="$(abspath $(BUILD)/libndgpu.so)" PYTHONPATH="$(abspath python)" \
	  $(AAT_PYTHON) tests/test_ndgpu_package.py
	@$(call aat_run,cpu,$(BUILD)/libndgpu.so)

array-api-test-emu: python-ext
	@$(MAKE) --no-print-directory BUILD=$(EMU_BUILD) CUDA_EMU=1 $(EMU_BUILD)/libndgpu.so >/dev/null
	@ND_DEVICE=cuda:0 NDGPU_LIBRARY="$(abspath $(EMU_BUILD)/libndgpu.so)" PYTHONPATH="$(abspath python)" \
	  $(AAT_PYTHON) tests/test_ndgpu_package.py
	@$(call aat_run,cuda:0,$(EMU_BUILD)/libndgpu.so)
