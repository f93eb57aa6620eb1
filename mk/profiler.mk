# The profiler's files, checked end to end (part of `make test`).
#
#   make test-profiler-trace   run examples/profile_training (trace + JSON
#                              summary into a temporary directory) and
#                              examples/quickstart under ND_PROFILE=trace.json
#                              (the trace written at exit), then parse both
#                              traces with tests/check_trace.py (Python's
#                              json; skipped with a message without python3)
#
# ND_DEVICE=cuda:0 with the emulated build (make BUILD=build-emu CUDA_EMU=1
# test-profiler-trace) checks the device rows too.

.PHONY: test-profiler-trace
test-profiler-trace: $(BUILD)/examples/profile_training $(BUILD)/examples/quickstart
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(BUILD)/examples/profile_training "$$tmp/trace.json" "$$tmp/summary.json" > "$$tmp/out.txt" \
	  || { cat "$$tmp/out.txt"; echo "test-profiler-trace: profile_training FAILED"; exit 1; }; \
	ND_PROFILE="$$tmp/env_trace.json" $(BUILD)/examples/quickstart > /dev/null \
	  || { echo "test-profiler-trace: quickstart under ND_PROFILE FAILED"; exit 1; }; \
	test -s "$$tmp/env_trace.json" || { echo "test-profiler-trace: ND_PROFILE wrote no trace"; exit 1; }; \
	if ! command -v python3 > /dev/null; then \
	  echo "test-profiler-trace: SKIPPED the JSON checks (no python3); the files were written"; exit 0; fi; \
	dev=""; if grep -q "Self device time total" "$$tmp/out.txt"; then dev=--device; fi; \
	python3 tests/check_trace.py "$$tmp/trace.json" "$$tmp/summary.json" --memory $$dev \
	  --ranges upload,forward,backward,step --require-ops --ops matmul,sigmoid,mean; \
	python3 tests/check_trace.py "$$tmp/env_trace.json" --require-ops --ops matmul,sum; \
	echo "test-profiler-trace: ok"

extra-tests:: test-profiler-trace
