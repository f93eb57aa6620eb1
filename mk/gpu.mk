# The GPU check (run on a GPU machine; see tools/gpu-check.sh and README).
.PHONY: gpu-check gpu-deps
gpu-check:
	bash tools/gpu-check.sh
gpu-deps:
	bash tools/gpu-deps.sh
