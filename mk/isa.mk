# Every CPU path in the tests (src/cpu/isa.h): the suites whose loops are
# specialised per instruction set run again with each path below the one
# this CPU has, forced by ND_CPU_ISA (the doors suite checks that the
# request took effect). Part of `make test`; ISA_SUITES chooses the suites.
ISA_SUITES ?= doors elementwise reduce linalg vmath
.PHONY: test-isa
test-isa: $(TEST_BIN) $(BUILD)/ndgpu-info
	@set -eo pipefail; have=$$($(BUILD)/ndgpu-info | sed -n 's/^  CPU path *//p' | cut -d' ' -f1); \
	case "$$have" in avx512) lower="avx2 baseline";; avx2) lower="baseline";; *) lower="";; esac; \
	for isa in $$lower; do for s in $(ISA_SUITES); do \
	  printf 'test-isa: ND_CPU_ISA=%-8s suite %-12s ' $$isa $$s; \
	  ND_CPU_ISA=$$isa CK_RUN_SUITE=$$s $(TEST_ENV) $(TEST_BIN) | tail -n 1; \
	done; done; \
	echo "test-isa: PASSED (detected path $${have:-unknown}; lower paths run: $${lower:-none})"

extra-tests:: test-isa
