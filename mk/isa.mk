# Every CPU path in the tests (src/cpu/isa.h): the suites whose loops are
# specialised per instruction set run again with each path below the one
# this CPU has, forced by ND_CPU_ISA (the doors suite checks that the
# request took effect). Part of `make test`; ISA_SUITES chooses the suites.
ISA_SUITES ?= doors elementwise reduce linalg vmath fft_core complex_ew sort sort_stats unique special random_dist sparse
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

# The bfloat16 GEMM paths (src/cpu/matmul_bf16.h): the suites with bfloat16
# products again under each path this CPU has besides the one in use.
BF16_SUITES ?= doors matmul_half linalg
.PHONY: test-bf16-paths
test-bf16-paths: $(TEST_BIN) $(BUILD)/ndgpu-info
	@set -eo pipefail; have=$$($(BUILD)/ndgpu-info | sed -n 's/^  bfloat16 GEMM *//p'); \
	case "$$have" in amx*) paths="avx512_bf16 sgemm";; "avx512_bf16"*) paths="sgemm";; *"the CPU has amx"*) paths="amx avx512_bf16";; *"the CPU has avx512_bf16"*) paths="avx512_bf16";; *) paths="";; esac; \
	for p in $$paths; do for s in $(BF16_SUITES); do \
	  printf 'test-bf16-paths: ND_CPU_BF16=%-11s suite %-12s ' $$p $$s; \
	  ND_CPU_BF16=$$p CK_RUN_SUITE=$$s $(TEST_ENV) $(TEST_BIN) | tail -n 1; \
	done; done; \
	echo "test-bf16-paths: PASSED (in use: $${have:-unknown}; others run: $${paths:-none})"

extra-tests:: test-bf16-paths
