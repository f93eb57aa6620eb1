# The emulated GPU (tests/emu, src/cuda/cuda_seam.h; README "What runs where").
#
#   make emu-test       the CUDA backend compiled as C++ against HIP-CPU
#                       ($(HIPCPU)) + the emulated CUDA runtime and the cuBLAS,
#                       cuFFT, cuSOLVER and cuSPARSE stand-ins (tests/emu), and the whole Check suite and
#                       the examples with cuda:0 = that device (build-emu/), then the
#                       NumPy comparisons (complex, FFT, linalg) on cpu and cuda:0
#   make emu-asan       the same under AddressSanitizer + UBSan (device
#                       buffers are host memory: an out-of-bounds device
#                       access is caught, like compute-sanitizer's memcheck),
#                       in one process (CK_FORK=no) so LeakSanitizer sees
#                       every test's allocations, as `make asan` does
#   make gpu-check-emu  the GPU check's two calls (tools/gpu-check.sh 1 and 2,
#                       docs/gpu-check.md) against a pack of the emulated build
#                       (build-emu/gpu-pack/); the files go to build-emu/gpu-check/
#
# HIPCPU=path overrides where HIP-CPU is (default ../shared/hip-cpu).
# Needs Debian's libtbb-dev (HIP-CPU runs blocks through C++17 parallel
# algorithms); as root `make emu-deps` installs it.
EMU_BUILD ?= build-emu
EMU_ASAN_BUILD ?= build-emu-asan

.PHONY: emu-test emu-asan gpu-check-emu emu-deps emu-check-hipcpu
emu-check-hipcpu:
	@if [ ! -f "$(HIPCPU)/include/hip/hip_runtime.h" ]; then \
	  echo "emu: HIP-CPU not found at $(HIPCPU) (expected $(HIPCPU)/include/hip/hip_runtime.h)." >&2; \
	  echo "emu: the emulated GPU needs HIP-CPU (ROCm/HIP-CPU, header-only); point HIPCPU=/path/to/hip-cpu at it." >&2; \
	  exit 1; fi

emu-deps: deps
	@dpkg-query -W -f='$${Status}' libtbb-dev 2>/dev/null | grep -q "install ok installed" && exit 0; \
	if [ "$$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then \
	  echo "emu: installing libtbb-dev"; export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -q >/dev/null && apt-get install -y -q libtbb-dev >/dev/null; \
	else echo "emu: missing libtbb-dev: sudo apt-get install -y libtbb-dev" >&2; exit 1; fi

# After the Check suite, the NumPy comparisons of complex, FFT and linalg
# (tests/test_*_numpy.py) again with cuda:0 on: a few seconds.
#
# Every CUDA program the emulated device compiles in the suite (generated
# kernel units, fused expressions, the tests' raw kernels) is kept and then
# compiled with the real NVRTC for sm_90 (tools/nvrtc-check.py: NVRTC needs
# no GPU), where the toolkit is installed: what runs emulated must compile
# for a real GPU. The suite's kernel cache starts empty (so every program
# is compiled and kept) in $(EMU_BUILD)/kernel-cache, which emu-asan then
# reads (the same programs: disk hits).
EMU_RTC_KEEP := $(CURDIR)/$(EMU_BUILD)/rtc-programs
EMU_KCACHE := $(CURDIR)/$(EMU_BUILD)/kernel-cache
emu-test: emu-check-hipcpu emu-deps
	@rm -rf $(EMU_RTC_KEEP) $(EMU_KCACHE)
	@ND_DEVICE=cuda:0 ND_EMU_RTC_KEEP=$(EMU_RTC_KEEP) ND_KERNEL_CACHE_DIR=$(EMU_KCACHE) $(MAKE) --no-print-directory BUILD=$(EMU_BUILD) CUDA_EMU=1 check-run
	@python3 tools/nvrtc-check.py $(EMU_RTC_KEEP); rc=$$?; [ $$rc -eq 2 ] && rc=0; exit $$rc
	@NDGPU_CPX_CUDA=1 NDGPU_FFT_CUDA=1 NDGPU_LA_CUDA=1 $(MAKE) --no-print-directory BUILD=$(EMU_BUILD) CUDA_EMU=1 \
	  python-complex-test python-fft-test python-linalg-test

# emu-asan leaves out the multi-GiB cases (ND_TEST_LARGE=0, as valgrind and
# compute-sanitizer do): emu-test has just run them unsanitized (CI time:
# emu-asan was the longest CI step, 1268 s on 2026-12-02).
emu-asan: emu-check-hipcpu emu-deps
	@ND_DEVICE=cuda:0 ND_KERNEL_CACHE_DIR=$(EMU_KCACHE) $(MAKE) --no-print-directory BUILD=$(EMU_ASAN_BUILD) CUDA_EMU=1 OPT="$(ASAN_OPT)" TEST_ENV="CK_FORK=no ND_TEST_LARGE=0" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" check-run

# The GPU check's two calls (docs/gpu-check.md), the same lists and files,
# against a pack of the emulated build; fails when either call does.
GPU_CHECK_EMU_BUDGET ?= 1800
gpu-check-emu: emu-check-hipcpu emu-deps
	@$(MAKE) --no-print-directory BUILD=$(EMU_BUILD) CUDA_EMU=1 $(call gpu_pack_inputs,$(EMU_BUILD))
	@bash tools/gpu-pack.sh $(EMU_BUILD) $(EMU_BUILD)/gpu-pack
	@rm -rf $(EMU_BUILD)/gpu-check; rc=0; for call in 1 2; do \
	  OUT=$(EMU_BUILD)/gpu-check GPU_CHECK_PACK=$(EMU_BUILD)/gpu-pack GPU_CHECK_BUDGET=$(GPU_CHECK_EMU_BUDGET) \
	    bash tools/gpu-check.sh $$call || rc=1; done; \
	ls -l $(EMU_BUILD)/gpu-check; exit $$rc
