# Benchmarks (benchmarks/README.md).
#
#   make bench        deps, build, the quick suite on every available device,
#                     the NumPy (and CuPy on a GPU) comparison table, a JSON
#                     record and a PNG plot in benchmarks/results/
#   make bench-full   the same with the full case list and 0.2 s per case
#   make bench-build  only build the benchmark binaries (build/benchmarks/)
#   make bench-dry-run  no measurement, no GPU needed: the NumPy/CuPy worker's
#                     self-test, then the plan of a quick GPU run (every cuda
#                     case, its CuPy equivalent, the GPU goal cases)
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

bench-build: $(BENCH_BINS)

bench: deps
	@$(MAKE) --no-print-directory bench-build
	$(PYTHON) benchmarks/compare.py --quick --bindir $(BUILD)/benchmarks $(BENCH_ARGS)

bench-full: deps
	@$(MAKE) --no-print-directory bench-build
	$(PYTHON) benchmarks/compare.py --bindir $(BUILD)/benchmarks $(BENCH_ARGS)

bench-dry-run: bench-build
	$(PYTHON) benchmarks/bench_worker.py --selftest
	$(PYTHON) benchmarks/compare.py --dry-run --quick --device cuda --bindir $(BUILD)/benchmarks
