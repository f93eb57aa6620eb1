# The allocator door (src/core/alloc.h; tests/test_faults.c injects failures
# through it): `make test-alloc-door` checks that no allocation in src/
# bypasses it. Part of `make test`.
.PHONY: test-alloc-door
test-alloc-door:
	@bash tests/test_alloc_door.sh

extra-tests:: test-alloc-door
