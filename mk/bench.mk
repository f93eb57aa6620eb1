# Benchmarks (docs/benchmarks.md).
#
#   make bench        deps, build, the quick suite on every available device,
#                     the NumPy (and CuPy on a GPU) comparison table, a JSON
#                     record, a Markdown summary and a PNG plot in
#                     benchmarks/results/
#   make bench-full   the same with the full case list and 0.2 s per case
#   make bench-build  only build the benchmark binaries (build/benchmarks/)
#   make bench-dry-run  no measurement, no GPU needed: the NumPy/CuPy worker's
#                     self-test, then the plan of a quick GPU run (every cuda
#                     case, its CuPy equivalent, the GPU goal cases)
#
# What is built: the CUDA half only when a GPU answers (nvidia-smi, or the
# driver's /proc/driver/nvidia/gpus; mk/gpu-probe.sh) or when CUDA=1 asks
# for it, and then only the GPU's own architecture unless CUDA_ARCH says
# otherwise; without either, the CPU half alone in $(BUILD)-cpu (no nvcc
# run: its GPU cases could not run anyway). CUDA=0 forces the CPU half.
# `make bench` prints what it built and why.
#
# Options: BENCH_ARGS="--filter add --threads 2" is passed to compare.py.

# every benchmarks/bench_<name>.c but bench_common.c
BENCH_NAMES := $(filter-out common,$(patsubst benchmarks/bench_%.c,%,$(wildcard benchmarks/bench_*.c)))
BENCH_BINS := $(BENCH_NAMES:%=$(BUILD)/benchmarks/bench_%)
BENCH_COMMON_O := $(BUILD)/benchmarks/bench_common.o
BENCH_ARGS ?=
PYTHON ?= python3

.PHONY: bench bench-full bench-build bench-dry-run

# Header dependencies from -MMD (the .d files are included by the Makefile).
$(BENCH_COMMON_O): benchmarks/bench_common.c $(BUILD)/benchmarks/bench_common.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/benchmarks/bench_%: benchmarks/bench_%.c $(BUILD)/benchmarks/bench_%.d $(BENCH_COMMON_O) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(BENCH_COMMON_O) $(LIB_A) $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

# the shared library too: the python group of compare.py loads it (built
# here from the same objects, so that compare.py never has to guess how)
bench-build: $(BENCH_BINS) $(BUILD)/libndgpu.so

# $(call bench_run,COMPARE_ARGS): decide, build, run (one shell).
define bench_run
set -eo pipefail; t0=$$(date +%s); \
eval "$$(bash mk/gpu-probe.sh)"; \
cuda=0; arch=""; \
if [ "$(CUDA)" = 0 ]; then why="CUDA=0 given"; \
elif [ "$(CUDA)" = 1 ]; then cuda=1; why="CUDA=1 given; $$GPU_WHY"; \
elif [ "$$GPU_FOUND" = 1 ] && [ -n "$(NVCC)" ]; then cuda=1; why="$$GPU_WHY"; \
elif [ "$$GPU_FOUND" = 1 ]; then why="$$GPU_WHY, but no nvcc (install the CUDA toolkit or set NVCC=)"; \
else why="$$GPU_WHY; CUDA=1 builds the CUDA half anyway"; fi; \
if [ $$cuda = 1 ]; then \
  if [ -n "$(BENCH_ARCH_GIVEN)" ]; then arch="$(CUDA_ARCH)"; ptx="$(CUDA_PTX)"; archwhy="CUDA_ARCH given"; \
  elif [ -n "$$GPU_ARCH" ]; then arch="$$GPU_ARCH"; ptx=0; archwhy="the GPU's own"; \
  else arch="$(CUDA_ARCH)"; ptx="$(CUDA_PTX)"; archwhy="the default list: no GPU architecture was read"; fi; \
  dir="$(BUILD)"; what="the CPU and CUDA halves (nvcc: sm_$${arch// /, sm_}$$( [ "$$ptx" = 1 ] && echo " + PTX" || true), $$archwhy)"; \
  set -- BUILD="$$dir" CUDA=1 CUDA_ARCH="$$arch" CUDA_PTX="$$ptx"; \
else \
  dir="$(BUILD)-cpu"; what="the CPU half only"; set -- BUILD="$$dir" CUDA=0; fi; \
echo "bench: building $$what in $$dir/: $$why"; \
$(MAKE) --no-print-directory $(AUTO_J) "$$@" bench-build; \
echo "bench: built in $$(( $$(date +%s) - t0 )) s: $$what in $$dir/"; \
$(PYTHON) benchmarks/compare.py $(1) --bindir "$$dir/benchmarks" $(BENCH_ARGS)
endef
# the build runs on every core unless make was given -j (AUTO_J, Makefile)
# non-empty when CUDA_ARCH comes from the command line or the environment
BENCH_ARCH_GIVEN := $(filter-out file default undefined,$(origin CUDA_ARCH))

bench: deps
	@$(call bench_run,--quick)

bench-full: deps
	@$(call bench_run,)

bench-dry-run: bench-build
	$(PYTHON) benchmarks/bench_worker.py --selftest
	$(PYTHON) benchmarks/compare.py --dry-run --quick --device cuda --bindir $(BUILD)/benchmarks
