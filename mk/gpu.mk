# The GPU check (docs/gpu-check.md): built here, run on a GPU machine.
#
#   make gpu-prep    the CUDA build with nvcc ($(GPU_PREP_BUILD)/, machine code
#                    for sm_$(GPU_PREP_ARCH): H100 and H200) of the test binary,
#                    ndgpu-info, the GPU examples and the benchmarks, packed with
#                    the host libraries they need into $(GPU_PACK)/ (git-ignored,
#                    carried to the GPU machine); prints its size and the two
#                    device-tool commands
#   make gpu-check   on a machine with a GPU: both calls of tools/gpu-check.sh
#                    against $(GPU_PACK)/ (records in benchmarks/results/gpu-check/)
#   make gpu-deps    the fallback only (docs/gpu-check.md): the OpenBLAS and Check
#                    .debs into .gpu-deps/ for a build on the GPU machine
#   make test-gpu-check  the check's own tests without a GPU (part of make test):
#                    no pack or no CUDA device gives FAILED and exit 2, skipped
#                    GPU cases give FAILED, at most 3 files per call
#
# GPU_PREP_ARCH="90 100" GPU_PREP_PTX=1 adds machine code and PTX for newer
# GPUs where the pack stays small enough (docs/gpu-check.md gives the sizes).
GPU_PACK ?= gpu-pack
GPU_PREP_BUILD ?= build-gpu
GPU_PREP_ARCH ?= 90
GPU_PREP_PTX ?= 0
GPU_PREP_FLAGS = BUILD=$(GPU_PREP_BUILD) CUDA=1 CUDA_ARCH="$(GPU_PREP_ARCH)" CUDA_PTX=$(GPU_PREP_PTX)
# what tools/gpu-pack.sh takes from a build directory B
gpu_pack_inputs = lib $(1)/tests/ndgpu_tests $(1)/ndgpu-info $(1)/examples/profile_training \
                  $(1)/examples/train_mlp_amp bench-build

.PHONY: gpu-prep gpu-check gpu-deps test-gpu-check
gpu-prep:
	@$(MAKE) --no-print-directory $(GPU_PREP_FLAGS) $(call gpu_pack_inputs,$(GPU_PREP_BUILD))
	@echo "sm_$(GPU_PREP_ARCH)$(if $(filter 1,$(GPU_PREP_PTX)), + PTX compute_$(lastword $(GPU_PREP_ARCH)))" \
	  >$(GPU_PREP_BUILD)/.gpu-prep-flags
	@bash tools/gpu-pack.sh $(GPU_PREP_BUILD) $(GPU_PACK)
	@echo "gpu-prep: the device-tool calls (docs/gpu-check.md):"
	@sed -n '/^<!-- calls -->/,/^<!-- end calls -->/p' docs/gpu-check.md | grep -v '^<!--' | grep -v '^```'

gpu-check:
	GPU_CHECK_PACK=$(GPU_PACK) bash tools/gpu-check.sh 1; \
	GPU_CHECK_PACK=$(GPU_PACK) bash tools/gpu-check.sh 2

gpu-deps:
	bash tools/gpu-deps.sh

test-gpu-check: $(BUILD)/ndgpu-info
	@bash tests/test_gpu_check.sh $(BUILD)/ndgpu-info

extra-tests:: test-gpu-check
