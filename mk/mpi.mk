# Collectives over MPI and NCCL: libndgpu_mpi (include/ndgpu_mpi.h,
# src/mpi/, docs/distributed.md).
#
#   make mpi          $(BUILD)/libndgpu_mpi.a and .so (plain `make` builds them
#                     too when mpicc is found, as it builds the CUDA backend
#                     when nvcc is)
#   make mpi-test     installs Open MPI when missing (as root), then runs the
#                     collective tests and examples/mpi/* under
#                     mpirun -np $(MPI_NP) (tests/mpi/run.sh)
#   make mpi-asan     the same under AddressSanitizer + UBSan in the emulated-GPU
#                     ASan build (build-emu-asan, as `make emu-asan` builds it:
#                     CPU arrays and cuda:0 arrays staged); LeakSanitizer
#                     suppresses only Open MPI's own allocations (tests/mpi/lsan.supp;
#                     Open MPI and PMIx keep their plugins loaded so that the
#                     stacks of those allocations can be named)
#   make mpi-bench    nd_allreduce against raw MPI_Allreduce and the scaling
#                     table (examples/mpi/scaling) with 2 processes; the record
#                     goes to benchmarks/results/ (benchmarks/mpi/run.sh)
#
# Options: MPI=0 leaves libndgpu_mpi out, MPI=1 requires mpicc; NCCL=0
#          leaves the NCCL path out, NCCL_HOME=dir names where NCCL is;
#          MPI_NP=2 processes; MPIRUN_FLAGS adds mpirun options.
#
# The NCCL path (GPU arrays) is compiled in real CUDA builds when nccl.h is
# found: NCCL_HOME/include (NCCL_HOME=... on the command line), the
# toolkit's include folder, /usr/include (Debian's and NVIDIA's libnccl-dev)
# or a pip wheel (nvidia-nccl-cu12 / -cu13: nvidia/nccl/include). NCCL=0
# leaves it out. libnccl.so.2 itself is loaded at run time (dlopen), so the
# library works where NCCL is not installed (GPU arrays are then staged
# through pinned host memory); where the library found at build time is
# not on the loader's path (a pip wheel), its full path is tried too.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPIRUN ?= $(shell command -v mpirun 2>/dev/null || echo mpirun)
MPI_NP ?= 2
MPIRUN_FLAGS ?=
ifeq ($(MPI),0)
  WITH_MPI := 0
else ifneq ($(MPICC),)
  WITH_MPI := 1
else ifeq ($(MPI),1)
  $(error MPI=1 but mpicc was not found)
else
  WITH_MPI := 0
endif

MPI_SRCS := $(wildcard src/mpi/*.c)
MPI_OBJS := $(MPI_SRCS:%.c=$(BUILD)/%.o)
MPI_LIB_A := $(BUILD)/libndgpu_mpi.a
MPI_LIB_SO := $(BUILD)/libndgpu_mpi.so.$(NDGPU_VERSION)
MPI_CFLAGS := $(CFLAGS_ALL)
ifeq ($(WITH_CUDA)$(CUDA_EMU)$(filter 0,$(NCCL)),1)
  # nvidia/nccl of the python3 that would import it (pip, venv or system)
  NCCL_PIP := $(shell python3 -c 'import importlib.util as u; s = u.find_spec("nvidia.nccl"); print(next(iter(s.submodule_search_locations)) if s else "")' 2>/dev/null)
  NCCL_INCLUDE := $(firstword $(foreach d,$(if $(NCCL_HOME),$(NCCL_HOME)/include) $(CUDA_HOME)/include /usr/include     $(if $(NCCL_PIP),$(NCCL_PIP)/include),$(if $(wildcard $(d)/nccl.h),$(d))))
  ifneq ($(NCCL_INCLUDE),)
    MPI_CFLAGS += -DND_MPI_NCCL=1
    ifneq ($(NCCL_INCLUDE),$(CUDA_HOME)/include)
      MPI_CFLAGS += -isystem $(NCCL_INCLUDE)
    endif
    NCCL_LIB_PATH := $(firstword $(wildcard $(NCCL_INCLUDE)/../lib/libnccl.so.2 $(NCCL_INCLUDE)/../lib64/libnccl.so.2))
    ifneq ($(NCCL_LIB_PATH),)
      MPI_CFLAGS += -DND_MPI_NCCL_LIB='"$(abspath $(NCCL_LIB_PATH))"'
    endif
  endif
endif
MPI_LDLIBS := $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++) -ldl
MPI_TEST_SRCS := $(wildcard tests/mpi/test_*.c)
MPI_TEST_BIN := $(BUILD)/tests/mpi/ndgpu_mpi_tests
MPI_EXAMPLE_SRCS := $(wildcard examples/mpi/*.c)
MPI_EXAMPLE_BINS := $(MPI_EXAMPLE_SRCS:examples/mpi/%.c=$(BUILD)/examples/mpi/%)
MPI_BENCH_SRCS := $(wildcard benchmarks/mpi/bench_*.c)
MPI_BENCH_BINS := $(MPI_BENCH_SRCS:benchmarks/mpi/%.c=$(BUILD)/benchmarks/mpi/%)

.PHONY: mpi mpi-test mpi-asan mpi-test-run mpi-bench mpi-bench-run mpi-deps mpi-build
ifeq ($(WITH_MPI),1)
all: mpi
endif

$(BUILD)/src/mpi/%.o: src/mpi/%.c $(BUILD)/src/mpi/%.d | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(MPICC) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

$(MPI_LIB_A): $(MPI_OBJS)
	rm -f $@ && ar rcs $@ $^

$(MPI_LIB_SO): $(MPI_OBJS) $(BUILD)/libndgpu.so
	$(MPICC) -shared -Wl,-soname,libndgpu_mpi.so.$(NDGPU_SOVERSION) $(SAN) -o $@ $(MPI_OBJS) \
	  -L$(BUILD) -lndgpu -ldl

$(BUILD)/libndgpu_mpi.so: $(MPI_LIB_SO)
	ln -sf libndgpu_mpi.so.$(NDGPU_VERSION) $(BUILD)/libndgpu_mpi.so.$(NDGPU_SOVERSION)
	ln -sf libndgpu_mpi.so.$(NDGPU_VERSION) $@

mpi: $(MPI_LIB_A) $(BUILD)/libndgpu_mpi.so

# Tests, examples and benchmarks link the static libraries.
$(MPI_TEST_BIN): $(MPI_TEST_SRCS) tests/mpi/mpi_test_util.h tests/creation_util.h tests/test_util.h $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(@D)
	$(MPICC) $(MPI_CFLAGS) $(CHECK_CFLAGS) -Itests -o $@ $(MPI_TEST_SRCS) $(MPI_LIB_A) $(LIB_A) $(CHECK_LIBS) $(MPI_LDLIBS)

$(BUILD)/examples/mpi/%: examples/mpi/%.c $(BUILD)/examples/mpi/%.d $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(@D)
	$(MPICC) $(MPI_CFLAGS) -MMD -MP -o $@ $< $(MPI_LIB_A) $(LIB_A) $(MPI_LDLIBS)

$(BUILD)/benchmarks/mpi/%: benchmarks/mpi/%.c $(BUILD)/benchmarks/mpi/%.d $(BENCH_COMMON_O) $(MPI_LIB_A) $(LIB_A)
	@mkdir -p $(@D)
	$(MPICC) $(MPI_CFLAGS) -MMD -MP -o $@ $< $(BENCH_COMMON_O) $(MPI_LIB_A) $(LIB_A) $(MPI_LDLIBS)

mpi-build: $(MPI_LIB_A) $(MPI_TEST_BIN) $(MPI_EXAMPLE_BINS) $(MPI_BENCH_BINS)

# Open MPI from Debian (libopenmpi-dev: mpicc, mpirun) when missing.
mpi-deps: deps
	@command -v mpicc >/dev/null && command -v mpirun >/dev/null && exit 0; \
	if [ "$$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then \
	  echo "mpi: installing libopenmpi-dev openmpi-bin"; export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -q >/dev/null && apt-get install -y -q libopenmpi-dev openmpi-bin >/dev/null; \
	else echo "mpi: missing Open MPI: sudo apt-get install -y libopenmpi-dev openmpi-bin" >&2; exit 1; fi

# A fresh make after mpi-deps, so that mpicc (maybe just installed) is found.
mpi-test: mpi-deps
	@$(MAKE) --no-print-directory MPI=1 mpi-test-run

mpi-asan: mpi-deps emu-check-hipcpu emu-deps
	@ND_DEVICE=cuda:0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/mpi/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0 \
	  OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1 \
	  $(MAKE) --no-print-directory MPI=1 BUILD=$(EMU_ASAN_BUILD) CUDA_EMU=1 OPT="$(ASAN_OPT)" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" mpi-test-run

mpi-test-run: mpi-build
	MPIRUN="$(MPIRUN)" MPI_NP=$(MPI_NP) MPIRUN_FLAGS="$(MPIRUN_FLAGS)" bash tests/mpi/run.sh $(BUILD)

mpi-bench: mpi-deps
	@$(MAKE) --no-print-directory MPI=1 mpi-bench-run

mpi-bench-run: mpi-build
	MPIRUN="$(MPIRUN)" MPIRUN_FLAGS="$(MPIRUN_FLAGS)" bash benchmarks/mpi/run.sh $(BUILD)

-include $(MPI_OBJS:.o=.d) $(MPI_EXAMPLE_BINS:=.d) $(MPI_BENCH_BINS:=.d)
