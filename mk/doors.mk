# The backend table is the only door to a device (src/core/backend.h): fails when
# a core file other than src/core/registry.c calls a backend by name or tests
# ND_WITH_*. Part of `make test` (extra-tests) and runnable on its own.
.PHONY: check-doors
check-doors:
	@bash tools/check-doors.sh

extra-tests:: check-doors

# The layout of the library (tools/layout.py): the call graph between its
# files, read from the objects' symbols, and every import circle in it with
# a way round. `make layout` prints it; LAYOUT_ARGS=--list adds every file's
# uses and users, --strict makes a circle an error.
.PHONY: layout
layout: $(LIB_A)
	@$(PYTHON) tools/layout.py --build $(BUILD) $(LAYOUT_ARGS)
