# The backend table is the only door to a device (src/backend.h): fails when
# a core file other than src/registry.c calls a backend by name or tests
# ND_WITH_*. Part of `make test` (extra-tests) and runnable on its own.
.PHONY: check-doors
check-doors:
	@bash tools/check-doors.sh

extra-tests:: check-doors
