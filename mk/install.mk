# Installation, pkg-config file, exported-symbol check and consumer test.
#
#   make install      PREFIX=/usr/local DESTDIR= : libndgpu.a, libndgpu.so.X.Y.Z
#                     (+ the libndgpu.so.0 and libndgpu.so links), ndgpu.h
#                     and its family headers ndgpu/*.h, ndgpu.pc, the CMake
#                     package files
#                     lib/cmake/ndgpu/ndgpuConfig.cmake and ndgpuConfigVersion.cmake
#                     (targets ndgpu::ndgpu, ndgpu::ndgpu_static and, with
#                     libndgpu_mpi, ndgpu::ndgpu_mpi[_static]),
#                     bin/ndgpu-info and the man page ndgpu(3)
#                     and, when libndgpu_mpi is built (mpicc found; MPI=0
#                     leaves it out), libndgpu_mpi.a/.so.X.Y.Z (+ links)
#                     and ndgpu_mpi.h
#   make uninstall    remove exactly those files (same PREFIX/DESTDIR) and the
#                     then empty include/ndgpu folder
#   make test-symbols the shared library exports exactly the ND_API functions
#                     declared in include/ndgpu.h and the family headers it
#                     includes (tests/test_symbols.sh)
#   make test-install install into a temporary DESTDIR and build and run
#                     examples/quickstart.c with pkg-config only and with CMake
#                     (find_package(ndgpu CONFIG)), shared and static
#                     (tests/test_install.sh)
#
# Directories follow the GNU conventions and can be overridden one by one:
# BINDIR, LIBDIR, INCLUDEDIR, PKGCONFIGDIR, CMAKEDIR, MANDIR.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/ndgpu
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
INSTALL ?= install

# ndgpu.pc: the BLAS the build chose (mk/blas.mk): the system OpenBLAS
# through its own .pc file when there is one, scipy-openblas and BLIS by
# folder and runtime path (libndgpu.so carries that runtime path itself);
# zlib (the .npz members); the CUDA libraries (and their directory) only in a CUDA build.
PC_REQUIRES_PRIVATE := $(BLAS_PC_REQUIRES) zlib
PC_LIBS_PRIVATE := $(BLAS_PC_LIBS) -lgomp -lm -lpthread
ifeq ($(WITH_CUDA),1)
  PC_LIBS_PRIVATE += -L$(CUDA_HOME)/lib64 -lcusparse -lcusolver -lcufft -lcublas -lcudart -lstdc++
endif

# What libndgpu.a needs at link time, for ndgpuConfig.cmake's
# ndgpu::ndgpu_static: the build's own link flags for the BLAS and LAPACK
# ($(BLAS_LIBS)), the CUDA libraries (their directory and runtime path, as
# the library's own link has them) in a CUDA build, OpenMP's runtime, libm,
# pthreads.
STATIC_DEP_LIBS := $(BLAS_LIBS) -lgomp -lz -lm -lpthread
ifeq ($(WITH_CUDA),1)
  STATIC_DEP_LIBS += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcusolver -lcufft -lcublas -lcudart -lstdc++
endif

# The public headers: the umbrella ndgpu.h and one header per family under
# ndgpu/ (installed as $(INCLUDEDIR)/ndgpu/*.h, which ndgpu.h includes).
NDGPU_FAMILY_HEADERS := $(sort $(wildcard include/ndgpu/*.h))
# Everything `make install` writes, relative to $(DESTDIR).
INSTALLED_FILES = $(LIBDIR)/libndgpu.a $(LIBDIR)/libndgpu.so.$(NDGPU_VERSION) \
                   $(LIBDIR)/$(LIB_SONAME) $(LIBDIR)/libndgpu.so \
                   $(INCLUDEDIR)/ndgpu.h $(NDGPU_FAMILY_HEADERS:include/%=$(INCLUDEDIR)/%) \
                   $(PKGCONFIGDIR)/ndgpu.pc \
                   $(CMAKEDIR)/ndgpuConfig.cmake $(CMAKEDIR)/ndgpuConfigVersion.cmake \
                   $(BINDIR)/ndgpu-info $(MANDIR)/man3/ndgpu.3
MPI_INSTALLED_FILES := $(LIBDIR)/libndgpu_mpi.a $(LIBDIR)/libndgpu_mpi.so.$(NDGPU_VERSION) \
                       $(LIBDIR)/libndgpu_mpi.so.$(NDGPU_SOVERSION) $(LIBDIR)/libndgpu_mpi.so \
                       $(INCLUDEDIR)/ndgpu_mpi.h
# (recursive: WITH_MPI is decided in mk/mpi.mk, read after this file)
INSTALLED_FILES += $(if $(filter 1,$(WITH_MPI)),$(MPI_INSTALLED_FILES))

.PHONY: install uninstall test-symbols test-install $(BUILD)/ndgpu.pc $(BUILD)/ndgpuConfig.cmake \
        $(BUILD)/ndgpuConfigVersion.cmake

# Regenerated on every install: PREFIX and LIBDIR may differ between calls.
$(BUILD)/ndgpu.pc: ndgpu.pc.in | $(BUILD)/.dirs
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(NDGPU_VERSION)|g' -e 's|@REQUIRES_PRIVATE@|$(PC_REQUIRES_PRIVATE)|g' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(PC_LIBS_PRIVATE))|g' $< > $@

ND_SPACE := $(subst ,, )
# The CMake package files, likewise (absolute paths, as in ndgpu.pc).
CMAKE_SUBST = -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
              -e 's|@VERSION@|$(NDGPU_VERSION)|g' -e 's|@SOVERSION@|$(NDGPU_SOVERSION)|g' \
              -e 's|@VERSION_MAJOR@|$(word 1,$(subst ., ,$(NDGPU_VERSION)))|g' \
              -e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(NDGPU_VERSION)))|g' \
              -e 's|@WITH_CUDA@|$(if $(filter 1,$(WITH_CUDA)),TRUE,FALSE)|g' \
              -e 's|@STATIC_DEPS@|$(subst $(ND_SPACE),;,$(strip $(STATIC_DEP_LIBS)))|g'
$(BUILD)/ndgpuConfig.cmake: ndgpuConfig.cmake.in | $(BUILD)/.dirs
	sed $(CMAKE_SUBST) $< > $@
$(BUILD)/ndgpuConfigVersion.cmake: ndgpuConfigVersion.cmake.in | $(BUILD)/.dirs
	sed $(CMAKE_SUBST) $< > $@

install: lib $(BUILD)/ndgpu-info $(BUILD)/ndgpu.pc $(BUILD)/ndgpuConfig.cmake $(BUILD)/ndgpuConfigVersion.cmake
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/ndgpu $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) \
	              $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libndgpu.a
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libndgpu.so.$(NDGPU_VERSION)
	ln -sf libndgpu.so.$(NDGPU_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libndgpu.so
	$(INSTALL) -m 644 include/ndgpu.h $(DESTDIR)$(INCLUDEDIR)/ndgpu.h
	$(INSTALL) -m 644 $(NDGPU_FAMILY_HEADERS) $(DESTDIR)$(INCLUDEDIR)/ndgpu/
	$(INSTALL) -m 644 $(BUILD)/ndgpu.pc $(DESTDIR)$(PKGCONFIGDIR)/ndgpu.pc
	$(INSTALL) -m 644 $(BUILD)/ndgpuConfig.cmake $(BUILD)/ndgpuConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/
	$(if $(filter 1,$(WITH_MPI)),@$(MAKE) --no-print-directory mpi && \
	  $(INSTALL) -m 644 $(MPI_LIB_A) $(DESTDIR)$(LIBDIR)/libndgpu_mpi.a && \
	  $(INSTALL) -m 755 $(MPI_LIB_SO) $(DESTDIR)$(LIBDIR)/libndgpu_mpi.so.$(NDGPU_VERSION) && \
	  ln -sf libndgpu_mpi.so.$(NDGPU_VERSION) $(DESTDIR)$(LIBDIR)/libndgpu_mpi.so.$(NDGPU_SOVERSION) && \
	  ln -sf libndgpu_mpi.so.$(NDGPU_SOVERSION) $(DESTDIR)$(LIBDIR)/libndgpu_mpi.so && \
	  $(INSTALL) -m 644 include/ndgpu_mpi.h $(DESTDIR)$(INCLUDEDIR)/ndgpu_mpi.h)
	$(INSTALL) -m 755 $(BUILD)/ndgpu-info $(DESTDIR)$(BINDIR)/ndgpu-info
	$(INSTALL) -m 644 docs/ndgpu.3 $(DESTDIR)$(MANDIR)/man3/ndgpu.3
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
	@rmdir $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(INCLUDEDIR)/ndgpu 2>/dev/null || true

test-symbols: $(BUILD)/libndgpu.so
	@CC="$(CC)" bash tests/test_symbols.sh $(BUILD)/libndgpu.so include/ndgpu.h

test-install: lib $(BUILD)/ndgpu-info
	@MAKE="$(MAKE)" BUILD="$(BUILD)" WITH_CUDA="$(WITH_CUDA)" CC="$(CC)" BLAS_LIBS="$(strip $(BLAS_LIBS))" bash tests/test_install.sh

extra-tests:: test-symbols test-install
