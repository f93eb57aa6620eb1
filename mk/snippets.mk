# The C snippets of README.md and docs/*.md, each compiled and run against
# the build's library (tests/test_snippets.sh explains the rules).
#
#   make test-snippets   (part of make test)

.PHONY: test-snippets
test-snippets: $(BUILD)/libndgpu.so $(if $(filter 1,$(WITH_MPI)),$(BUILD)/libndgpu_mpi.so)
	@BUILD="$(BUILD)" CC="$(CC)" MPICC="$(MPICC)" bash tests/test_snippets.sh

extra-tests:: test-snippets
