# The out test's coverage (tools/out_api.py): every public function with an
# `nd_array **out` parameter, read from include/ndgpu.h and the ndgpu/
# headers it includes, has an adapter entry in the tables of
# tests/test_out_api_*.c, whose cases the out_api suite runs. Fails naming
# each missing function (`python3 tools/out_api.py stubs $(OUT_API_TABLES)`
# writes adapter stubs for them).
#
#   make check-out-api   (part of make test)

PYTHON ?= python3
OUT_API_TABLES := $(wildcard tests/test_out_api_*.c)

.PHONY: check-out-api
check-out-api:
	@$(PYTHON) tools/out_api.py --cc "$(CC)" check $(OUT_API_TABLES)

extra-tests:: check-out-api
