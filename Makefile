# libndgpu build.
#
#   make            libndgpu.a + libndgpu.so (CUDA backend when nvcc is found)
#   make test       deps, build, run the Check suite and the examples (the
#                   CUDA half first, wherever nvcc is, with its compile time)
#   make asan       the whole suite under AddressSanitizer + UBSan
#   make valgrind   the suite under valgrind memcheck (leaks are errors)
#   make examples   build examples/*.c
#   make run        the main job: build and run examples/quickstart
#   make deps       install the Debian packages the build needs (as root)
#
# Options: CUDA=0 forces a CPU-only build, CUDA=1 requires nvcc (`make bench`
#          builds the CUDA half only for a GPU or CUDA=1: mk/bench.mk);
#          CUDA_ARCH="80 90" (default; CI builds CUDA_ARCH=90 CUDA_PTX=0 to stay fast);
#          NATIVE=1 adds -march=native; DEBUG=1 builds -O0 -g;
#          BUILD=dir chooses the build directory; CHECK_JOBS=2 runs the
#          suites two processes at a time;
#          BLAS=scipy-openblas|openblas|blis chooses the BLAS/LAPACK
#          (default: scipy-openblas when available, see docs/blas.md).

SHELL := /bin/bash
NDGPU_SOVERSION := 0
NDGPU_VERSION := 0.1.0

BUILD ?= build
CC ?= cc
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# GPU architectures: machine code for each, plus PTX of the last one so newer
# GPUs can run it (CUDA_PTX=0 leaves it out). CI builds one architecture.
CUDA_ARCH ?= 80 90
CUDA_PTX ?= 1
PTX_GENCODE = -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))

# CUDA_EMU=1: the CUDA backend compiled as C++ for the emulated GPU
# (HIP-CPU; mk/emu.mk: make emu-test, emu-asan, gpu-check-emu). Test builds only.
HIPCPU ?= ../shared/hip-cpu
ifeq ($(CUDA_EMU),1)
  WITH_CUDA := 1
else ifeq ($(CUDA),0)
  WITH_CUDA := 0
else ifneq ($(NVCC),)
  WITH_CUDA := 1
else ifeq ($(CUDA),1)
  $(error CUDA=1 but nvcc was not found)
else
  WITH_CUDA := 0
endif

comma := ,
OPT ?= -O2
ifeq ($(DEBUG),1)
  OPT := -O0 -g
endif
ifeq ($(NATIVE),1)
  OPT += -march=native
endif

# The BLAS/LAPACK (mk/blas.mk, docs/blas.md): BLAS=auto|scipy-openblas|openblas|blis
include mk/blas.mk
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

# WERROR=0: warnings stay warnings (a build on a machine whose compilers CI
# has never used, e.g. the GPU machine's fallback build in docs/gpu-check.md).
WERROR ?= 1
WARN := -Wall -Wextra $(if $(filter 0,$(WERROR)),,-Werror)
# -fno-math-errno: the library never reads errno, and libm calls vectorise without it.
CFLAGS_ALL := -std=c11 $(WARN) $(OPT) -fno-math-errno -fPIC -fvisibility=hidden -fopenmp -D_GNU_SOURCE \
              -Iinclude -Isrc $(BLAS_CFLAGS) $(SAN) $(EXTRA_CFLAGS)
LDLIBS_ALL := $(BLAS_LIBS) -fopenmp -lz -lm -lpthread

# src/ by role (README "Source map"): core/ the base, shared/ the bodies
# both backends compile (headers only), prof/ the profiler, one folder per
# op family, cpu/ and cuda/ the backends, mpi/ the optional distributed
# layer (mk/mpi.mk).
LIB_DIRS := $(filter-out src/cuda/ src/mpi/,$(sort $(dir $(wildcard src/*/*))))
SRCS := $(foreach d,$(LIB_DIRS),$(wildcard $(d)*.c))
CU_SRCS := $(wildcard src/cuda/*.cu)
ifeq ($(CUDA_EMU),1)
  # tests/emu first on the include path: its cuda_runtime.h, cublas_v2.h,
  # cufft.h, cusolverDn.h and cusparse.h stand in for the toolkit's (whose directory is not on the path at
  # all). The emulated runtime and the cuBLAS, cuFFT, cuSOLVER and cuSPARSE stand-ins go into this build's
  # libndgpu.a/.so (a test build: never installed).
  CFLAGS_ALL += -DND_WITH_CUDA=1 -DND_CUDA_EMU=1 -Itests/emu
  CXX ?= g++
  NVCC := $(CXX)
  NVCCFLAGS := -x c++ -std=c++17 $(OPT) -ffp-contract=off -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
               -Wno-unknown-pragmas -Wno-class-memaccess -DND_WITH_CUDA=1 -DND_CUDA_EMU=1 \
               -Itests/emu -isystem $(HIPCPU)/include -Iinclude -Isrc $(BLAS_CFLAGS) $(SAN)
  # nvtx3 (header-only, the toolkit's) for the NVTX range slots (src/cuda/nvtx.cu),
  # searched after every other directory so the stand-ins above always win
  NVTX_INCLUDE ?= $(wildcard /usr/local/cuda/include)
  NVCCFLAGS += $(if $(NVTX_INCLUDE),-idirafter $(NVTX_INCLUDE))
  EMU_SRCS := $(wildcard tests/emu/*.cpp)
  EMU_OBJS := $(EMU_SRCS:%.cpp=$(BUILD)/%.o)
  LDLIBS_ALL += -ltbb -lstdc++
  CU_OBJS := $(CU_SRCS:%.cu=$(BUILD)/%.o) $(EMU_OBJS)
else ifeq ($(WITH_CUDA),1)
  CFLAGS_ALL += -DND_WITH_CUDA=1 -I$(CUDA_HOME)/include
  # -fmad=false: no a*b+c contracted into an FMA. The CPU backend compiles
  # in ISO C mode (no contraction), and the scalar op bodies are shared, so
  # the GPU computes the same function bit for bit; an op that wants an FMA
  # calls fma() explicitly on both sides. The kernels are memory-bound, and
  # matmul is cuBLAS, so this costs nothing measurable.
  NVCCFLAGS := -std=c++17 -O2 -fmad=false -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra$(if $(filter 0,$(WERROR)),,$(comma)-Werror -Werror all-warnings) \
               $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
               $(if $(filter 1,$(CUDA_PTX)),$(PTX_GENCODE)) \
               -DND_WITH_CUDA=1 -Iinclude -Isrc $(NVCC_EXTRA)
  LDLIBS_ALL += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcusolver -lcufft -lcublas -lcudart
  CU_OBJS := $(CU_SRCS:%.cu=$(BUILD)/%.o)
else
  CU_OBJS :=
endif
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
# Everything compiled or linked against the BLAS is redone when the choice
# changes (mk/blas.mk writes $(BLAS_STAMP) only then).
$(OBJS) $(CU_OBJS) $(LIB_SO): $(BLAS_STAMP)

# The CUDA objects remember the compiler and flags they were built with:
# $(BUILD)/.nvccflags changes when they change (another CUDA_ARCH, the
# emulated build's flags ...), and every .cu object depends on it, so a
# build directory never mixes objects of two architectures lists.
NVCC_STAMP := $(if $(CU_OBJS),$(BUILD)/.nvccflags)
ifneq ($(NVCC_STAMP),)
  ifeq ($(filter clean,$(MAKECMDGOALS)),)
    _nvcc_id := $(strip $(filter-out ccache %/ccache,$(NVCC)) $(NVCCFLAGS))
    ifneq ($(_nvcc_id),$(strip $(file <$(NVCC_STAMP))))
      $(shell mkdir -p $(BUILD))
      $(file >$(NVCC_STAMP),$(_nvcc_id))
    endif
  endif
endif

# The SIMD sort (src/cpu/sort_simd.cpp over the vendored x86-simd-sort,
# third_party/x86-simd-sort): on x86-64 the one C++ file is compiled once
# per CPU path (AVX-512 SKX, AVX2) and src/cpu/sort_simd.c picks one at
# run time (src/cpu/isa.h). -fno-weak (gcc): every template instance stays
# local to its object, so no function compiled for AVX-512 can stand in for
# the AVX2 object's copy at link time; a compiler without it (clang) shares
# the std:: instances, and the AVX2 object comes first so that its copies
# are the ones kept. It needs only libc and libm.
CXX ?= g++
XSS_ARCH := $(shell $(CC) -dumpmachine 2>/dev/null | cut -d- -f1)
ifeq ($(XSS_ARCH),x86_64)
  $(BUILD)/src/cpu/sort_simd.o: CFLAGS_ALL += -DND_HAVE_XSS=1
  XSS_NOWEAK := $(shell $(CXX) -fno-weak -x c++ -c /dev/null -o /dev/null 2>/dev/null && echo -fno-weak)
  XSS_CXXFLAGS := -std=c++17 $(OPT) $(XSS_NOWEAK) -fno-exceptions -fno-rtti -fPIC -fvisibility=hidden \
                  -Wall -Wextra -Werror -isystem third_party/x86-simd-sort/src $(SAN)
  XSS_FLAGS_avx512 := -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma
  XSS_FLAGS_avx2 := -mavx2 -mfma
  XSS_OBJS := $(BUILD)/src/cpu/sort_simd_avx2.o $(BUILD)/src/cpu/sort_simd_avx512.o
  OBJS += $(XSS_OBJS)
endif

# The shared headers a run-time compiled kernel includes, embedded in the
# library as strings (src/shared/kernel_slots.h, tools/embed.sh).
KERNEL_HEADERS := src/shared/hostdev.h src/shared/half.h src/shared/dtype_table.h src/shared/convert.h \
                  src/shared/ops_math.h src/shared/ops_cpx.h src/shared/ops_cpx_math.h src/shared/ops_cpx_numpy.h \
                  src/shared/ops_special.h \
                  src/shared/ops_gamma.h src/shared/ops_bessel.h
$(BUILD)/gen/kernel_headers.c: $(KERNEL_HEADERS) tools/embed.sh Makefile
	@mkdir -p $(@D)
	bash tools/embed.sh $@ $(KERNEL_HEADERS)
$(BUILD)/gen/kernel_headers.o: $(BUILD)/gen/kernel_headers.c src/shared/kernel_slots.h
	$(CC) $(CFLAGS_ALL) -c $< -o $@
OBJS += $(BUILD)/gen/kernel_headers.o

LIB_A := $(BUILD)/libndgpu.a
LIB_SO := $(BUILD)/libndgpu.so.$(NDGPU_VERSION)
LIB_SONAME := libndgpu.so.$(NDGPU_SOVERSION)

TEST_SRCS := $(wildcard tests/test_*.c)
# Test kernels (tests/cuda/*.cu): compiled like src/cuda in CUDA builds.
TEST_CU_OBJS := $(if $(filter 1,$(WITH_CUDA)),$(patsubst %.cu,$(BUILD)/%.o,$(wildcard tests/cuda/*.cu)))
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)
TEST_BIN := $(BUILD)/tests/ndgpu_tests
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)

.PHONY: all lib test check-run asan valgrind examples run clean deps
all: lib
lib: $(LIB_A) $(BUILD)/libndgpu.so

# Header dependencies: exact, from the compiler. -MMD -MP writes
# $(BUILD)/....d beside each object (gcc and nvcc alike), which names the
# headers that object includes; editing a header rebuilds its users only.
# Every object also depends on its .d file: where the .d is missing (a
# fresh clone has no objects either; an object from an older build
# without one) the empty rule "remakes" it and the object is rebuilt,
# writing the .d, so a missing dependency list never hides a change.
# (ccache may write the .d after the object: the object is touched last,
# or it would look older than its .d and be rebuilt on every make.)
$(BUILD)/%.o: %.c $(BUILD)/%.d | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@
	@touch $@

$(BUILD)/src/cpu/sort_simd_%.o: src/cpu/sort_simd.cpp $(BUILD)/src/cpu/sort_simd_%.d | $(BUILD)/.dirs
	$(CXX) $(XSS_CXXFLAGS) $(XSS_FLAGS_$*) -DND_XSS_SFX=$* -MMD -MP -c $< -o $@
	@touch $@

$(BUILD)/%.o: %.cu $(BUILD)/%.d $(NVCC_STAMP) | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@
	@touch $@

$(BUILD)/tests/emu/%.o: tests/emu/%.cpp $(BUILD)/tests/emu/%.d $(NVCC_STAMP) | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@
	@touch $@

$(BUILD)/%.d: ;
.PRECIOUS: $(BUILD)/%.d

$(BUILD)/.dirs:
	mkdir -p $(patsubst %/,$(BUILD)/%,$(LIB_DIRS)) $(BUILD)/src/cuda $(BUILD)/tests/emu $(BUILD)/tests/cuda $(BUILD)/examples
	touch $@

$(LIB_A): $(OBJS) $(CU_OBJS)
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(OBJS) $(CU_OBJS)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) $(SAN) -o $@ $^ $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

$(BUILD)/libndgpu.so: $(LIB_SO)
	ln -sf libndgpu.so.$(NDGPU_VERSION) $(BUILD)/$(LIB_SONAME)
	ln -sf libndgpu.so.$(NDGPU_VERSION) $@

# The test binary links the static library (internal symbols reachable
# through src/ headers for white-box tests). One object per test file
# (the pattern rule above, with Check's flags), so a header edit
# recompiles only the test files that include it.
$(TEST_OBJS): CFLAGS_ALL += $(CHECK_CFLAGS)
$(TEST_BIN): $(TEST_OBJS) $(TEST_CU_OBJS) $(LIB_A)
	$(CC) $(CFLAGS_ALL) $(CHECK_CFLAGS) -o $@ $(TEST_OBJS) $(TEST_CU_OBJS) $(LIB_A) $(CHECK_LIBS) $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

# Programs built straight from one .c (examples, tools, benchmarks) write
# their .d beside the binary ($(BUILD)/examples/quickstart.d ...).
$(BUILD)/examples/%: examples/%.c $(BUILD)/examples/%.d $(LIB_A)
	$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(LIB_A) $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

examples: $(EXAMPLE_BINS)

deps:
	@bash tools/deps.sh

# -jN (N = the cores) when make was not given -j; expanded in recipes, where
# MAKEFLAGS holds the command line's flags (as in `make bench`, mk/bench.mk)
NPROC := $(shell nproc 2>/dev/null || echo 2)
AUTO_J = $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(NPROC))

# Check prints "NN%: Checks: N, Failures: F, Errors: E" as its last line.
# The CUDA half is compiled first, on its own, wherever nvcc is (with or
# without a GPU: it must compile, and the emulated GPU runs it), and its
# compile time is printed; `make bench` builds it only for a GPU.
# The builds run on every core unless make was given -j (a plain
# `make test` on a fresh machine); the further checks run one at a time.
test: deps
	@$(MAKE) --no-print-directory $(AUTO_J) cuda-half
	@$(MAKE) --no-print-directory $(AUTO_J) check-run
	@$(MAKE) --no-print-directory extra-tests

.PHONY: cuda-half
cuda-half:
ifeq ($(CU_OBJS),)
	@echo "test: CPU-only build (CUDA=0, or no nvcc): the CUDA half is not compiled"
else
	@t0=$$(date +%s); n=$$($(MAKE) --no-print-directory -q $(CU_OBJS) $(TEST_CU_OBJS) 2>/dev/null && echo 0 || echo 1); \
	$(MAKE) --no-print-directory cuda-objs; \
	if [ $$n = 0 ]; then echo "test: the CUDA half is up to date ($(words $(CU_OBJS) $(TEST_CU_OBJS)) objects, $(CUDA_HALF_WHAT))"; \
	else echo "test: the CUDA half ($(words $(CU_OBJS) $(TEST_CU_OBJS)) objects, $(CUDA_HALF_WHAT)) compiled in $$(( $$(date +%s) - t0 )) s"; fi
endif
.PHONY: cuda-objs
cuda-objs: $(CU_OBJS) $(TEST_CU_OBJS)
	@:
CUDA_HALF_WHAT = $(if $(filter 1,$(CUDA_EMU)),g++ against HIP-CPU for the emulated GPU,nvcc for sm_$(subst $() $(),$(comma) sm_,$(strip $(CUDA_ARCH)))$(if $(filter 1,$(CUDA_PTX)), + PTX))
comma := ,

# Areas hook further test scripts in with `extra-tests:: target` (mk/*.mk).
.PHONY: extra-tests
extra-tests::
	@true

# CHECK_JOBS=N runs the suites N processes at a time, one process per
# suite (mk/run-suites.sh; CI uses 2); the default runs them in one.
CHECK_JOBS ?= 1
check-run: $(TEST_BIN) $(EXAMPLE_BINS)
	@bash tests/run_examples.sh $(BUILD)/examples
ifeq ($(CHECK_JOBS),1)
	$(TEST_ENV) $(TEST_BIN)
else
	$(TEST_ENV) bash mk/run-suites.sh $(TEST_BIN) $(CHECK_JOBS)
endif

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/examples/quickstart
	$(BUILD)/examples/quickstart

# The sanitizer builds' optimisation and debug level (asan, emu-asan,
# mpi-asan, which share build-emu-asan): -g1 keeps the file:line of every
# report frame and compiles the template-heavy emulated kernels about 30%
# faster than -g (no variable information, which no report needs).
ASAN_OPT := -O1 -g1

# The whole suite in one process (CK_FORK=no) so LeakSanitizer checks every
# test's allocations at exit. The CUDA objects are built with nvcc without
# sanitizers anyway, so the ASan build is CPU-only.
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan CUDA=0 OPT="$(ASAN_OPT)" TEST_ENV="CK_FORK=no" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" check-run

# valgrind memcheck suite by suite (definite/indirect leaks and memory
# errors fail). The default list leaves out the four compute-heavy suites
# (elementwise, reduce, linalg, vmath: 15k+ cases or ULP sweeps over
# millions of values, minutes each under valgrind);
# ASan+LSan in `make asan` covers every suite. VALGRIND_SUITES=all runs all.
# ND_TEST_LARGE=0: valgrind runs threads one at a time, so the large and
# the many-iteration race cases (tests/test_util.h) take their small form.
VALGRIND_SUITES ?= core dtype creation views random npy dlpack pool runtime gpu coverage softmax amp matmul_half complex fft_core complex_ew reduce_cpx
ifeq ($(VALGRIND_SUITES),all)
  override VALGRIND_SUITES := core dtype creation views elementwise reduce linalg random npy dlpack pool runtime gpu gpu_ew gpu_reduce gpu_linalg gpu_random coverage vmath
endif
# VALGRIND_JOBS=2: two suites at a time (valgrind runs a process's threads
# on one core; CI uses 2).
VALGRIND_JOBS ?= 1
VALGRIND_CMD := valgrind -q --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    --suppressions=tests/valgrind.supp
valgrind: $(TEST_BIN)
ifneq ($(VALGRIND_JOBS),1)
	ND_TEST_LARGE=0 CK_FORK=no SUITE_WRAPPER="$(VALGRIND_CMD)" bash mk/run-suites.sh $(TEST_BIN) $(VALGRIND_JOBS) $(VALGRIND_SUITES)
else
	@set -eo pipefail; for s in $(VALGRIND_SUITES); do \
	  echo "valgrind: suite $$s"; \
	  ND_TEST_LARGE=0 CK_FORK=no CK_RUN_SUITE=$$s valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	    --suppressions=tests/valgrind.supp $(TEST_BIN) | tail -n 1; \
	done
endif

clean:
	rm -rf build build-asan build-*

# Feature areas add their own targets in mk/*.mk (benchmarks, install, fuzz, docs ...).
-include $(wildcard mk/*.mk)

# Test and benchmark objects include src/cpu/blas.h too (see OBJS above).
$(TEST_OBJS) $(BENCH_COMMON_O): $(BLAS_STAMP)

# The dependency lists written by -MMD (after mk/*.mk, which define the
# benchmark and tool targets); missing ones are fine (see above).
-include $(OBJS:.o=.d) $(CU_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(TEST_CU_OBJS:.o=.d) \
         $(EXAMPLE_BINS:=.d) $(BENCH_COMMON_O:.o=.d) $(BENCH_BINS:=.d) $(TOOL_BINS:=.d)
