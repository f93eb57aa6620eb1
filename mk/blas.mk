# The BLAS and LAPACK the CPU backend links (docs/blas.md). Read by the
# Makefile before its flags are set (and once more by its mk/*.mk loop,
# which the guard below makes a no-op).
#
#   BLAS=auto            (default) scipy-openblas when it is installed or can
#                        be installed (tools/deps.sh blas), else openblas
#   BLAS=scipy-openblas  the current OpenBLAS that NumPy and SciPy ship
#                        (PyPI scipy-openblas32: symbols prefixed scipy_,
#                        its own headers; LAPACK included)
#   BLAS=openblas        the distribution's OpenBLAS (pkg-config openblas)
#   BLAS=blis            BLIS (Debian libblis-openmp-dev) with the reference
#                        LAPACK (liblapack3) running on BLIS's BLAS
#
#   SCIPY_OPENBLAS_DIR=dir  the scipy_openblas32 package folder (holding lib/
#                        and include/); default: ask $(PYTHON)
#
# The chosen library's folder goes into the runtime path (-rpath) of
# libndgpu.so and of every program built here, and into ndgpu.pc, so
# nothing needs LD_LIBRARY_PATH. nd_build_info() and ndgpu-info name the
# library, its version and the kernel core it runs.
ifndef ND_BLAS_MK
ND_BLAS_MK := 1

BLAS ?= auto
PYTHON ?= python3
ND_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)

scipy_openblas_query = $(shell $(PYTHON) -c 'import os, scipy_openblas32 as s; print(os.path.dirname(s.get_lib_dir()))' 2>/dev/null)

ifeq ($(filter auto scipy-openblas,$(BLAS)),$(BLAS))
  SCIPY_OPENBLAS_DIR ?= $(scipy_openblas_query)
  # auto and not installed: install it once (tools/deps.sh blas: pip), unless
  # only cleaning or installing the dependencies; a failed try is remembered
  # in $(BUILD)/.blas-install-failed so an offline machine is not asked again.
  ifeq ($(BLAS)$(SCIPY_OPENBLAS_DIR),auto)
    ifeq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),$(or $(MAKECMDGOALS),all))
      ifeq ($(wildcard $(BUILD)/.blas-install-failed),)
        ND_BLAS_TRY := $(shell PYTHON=$(PYTHON) bash tools/deps.sh blas >&2 || { mkdir -p $(BUILD) && touch $(BUILD)/.blas-install-failed; })
        override SCIPY_OPENBLAS_DIR := $(scipy_openblas_query)
      endif
    endif
  endif
  ifneq ($(wildcard $(SCIPY_OPENBLAS_DIR)/lib/libscipy_openblas.so),)
    override BLAS := scipy-openblas
  else ifeq ($(BLAS),scipy-openblas)
    $(error BLAS=scipy-openblas: scipy_openblas32 not found (pip install scipy-openblas32, or SCIPY_OPENBLAS_DIR=dir))
  else
    override BLAS := openblas
  endif
endif

ifeq ($(BLAS),scipy-openblas)
  BLAS_LIBDIR := $(SCIPY_OPENBLAS_DIR)/lib
  BLAS_CFLAGS := -isystem $(SCIPY_OPENBLAS_DIR)/include -DND_BLAS_SCIPY_OPENBLAS=1
  BLAS_LIBS := -L$(BLAS_LIBDIR) -Wl,-rpath,$(BLAS_LIBDIR) -lscipy_openblas
  # ndgpu.pc (mk/install.mk): no .pc of its own on the default search path
  BLAS_PC_REQUIRES :=
  BLAS_PC_LIBS := -L$(BLAS_LIBDIR) -Wl,-rpath,$(BLAS_LIBDIR) -lscipy_openblas
else ifeq ($(BLAS),openblas)
  BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null) -DND_BLAS_OPENBLAS=1
  BLAS_LIBS := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
  BLAS_PC_REQUIRES := $(if $(shell pkg-config --exists openblas 2>/dev/null && echo y),openblas,)
  BLAS_PC_LIBS := $(if $(BLAS_PC_REQUIRES),,-lopenblas)
else ifeq ($(BLAS),blis)
  BLIS_DIR ?= /usr/lib/$(ND_MULTIARCH)/blis-openmp
  BLIS_INCLUDE ?= /usr/include/$(ND_MULTIARCH)/blis-openmp
  # the reference LAPACK itself (not the liblapack.so.3 alternative, which
  # may be OpenBLAS's); its BLAS calls bind to libblis, linked first
  BLIS_LAPACK_DIR ?= /usr/lib/$(ND_MULTIARCH)/lapack
  BLAS_LIBDIR := $(BLIS_DIR)
  BLAS_CFLAGS := -isystem $(BLIS_INCLUDE) -DND_BLAS_BLIS=1
  BLAS_LIBS := -L$(BLIS_DIR) -Wl,-rpath,$(BLIS_DIR) -lblis \
               -Wl,-rpath,$(BLIS_LAPACK_DIR) $(BLIS_LAPACK_DIR)/liblapack.so.3
  BLAS_PC_REQUIRES :=
  BLAS_PC_LIBS := $(BLAS_LIBS)
else
  $(error BLAS=$(BLAS): choose auto, scipy-openblas, openblas or blis)
endif

# The choice, rewritten only when it changes: objects and links depend on it.
BLAS_STAMP := $(BUILD)/.blas-choice
ND_BLAS_LINE := $(BLAS) | $(BLAS_CFLAGS) | $(BLAS_LIBS)
ifneq ($(shell cat $(BLAS_STAMP) 2>/dev/null),$(ND_BLAS_LINE))
  ND_BLAS_WRITE := $(shell mkdir -p $(BUILD) && echo '$(ND_BLAS_LINE)' > $(BLAS_STAMP))
endif

.PHONY: blas-info
blas-info:
	@echo "BLAS=$(BLAS)"
	@echo "BLAS_CFLAGS=$(BLAS_CFLAGS)"
	@echo "BLAS_LIBS=$(BLAS_LIBS)"

endif
