# The doors of src/ (README "Source map"): the text rules of
# tools/check-doors.sh (only the registry names a backend, its build flag or
# its device type) and the rooms' include, symbol and walk rules read from
# the objects (tools/layout.py --doors). Part of `make test` (extra-tests)
# and runnable on its own.
.PHONY: check-doors
check-doors: $(LIB_A)
	@bash tools/check-doors.sh
	@$(PYTHON) tools/layout.py --build $(BUILD) --doors

extra-tests:: check-doors

# The layout of the library (tools/layout.py): the call graph between its
# files, read from the objects' symbols, and every import circle in it with
# a way round. `make layout` prints it; LAYOUT_ARGS=--list adds every file's
# uses and users, --strict makes a circle an error.
.PHONY: layout
layout: $(LIB_A)
	@$(PYTHON) tools/layout.py --build $(BUILD) $(LAYOUT_ARGS)
