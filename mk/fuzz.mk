# Fuzzing the .npy parser with libFuzzer (clang, ASan + UBSan).
#
#   make fuzz                 build and fuzz for FUZZ_SECONDS (default 60)
#   make fuzz-regress         run the seeds and the golden files once (no fuzzing)
#   make fuzz-build           only build $(BUILD)/fuzz/fuzz_npy
#
# The library sources are compiled straight into the fuzzer (CPU only).
# Needs clang and its runtime (Debian: clang, libclang-rt-14-dev) and libomp
# (libomp-dev). New interesting inputs go to $(BUILD)/fuzz/corpus; a crash
# leaves crash-* / leak-* files in $(BUILD)/fuzz/ (reproduce with
# `$(BUILD)/fuzz/fuzz_npy FILE`).

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BIN := $(BUILD)/fuzz/fuzz_npy
FUZZ_CFLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer -Wno-pass-failed -fopenmp -D_GNU_SOURCE -Iinclude -Isrc $(BLAS_CFLAGS)
FUZZ_SEEDS := tests/fuzz/corpus tests/data
FUZZ_SRCS := $(SRCS)

.PHONY: fuzz fuzz-build fuzz-regress
fuzz-build: $(FUZZ_BIN)

$(FUZZ_BIN): tests/fuzz/fuzz_npy.c $(FUZZ_SRCS) $(wildcard include/*.h src/*.h src/cpu/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_npy.c $(FUZZ_SRCS) $(BLAS_LIBS) -lm -lpthread

fuzz: $(FUZZ_BIN)
	@mkdir -p $(BUILD)/fuzz/corpus
	cd $(BUILD)/fuzz && ./fuzz_npy -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	  -dict=$(CURDIR)/tests/fuzz/npy.dict -print_final_stats=1 \
	  corpus $(addprefix $(CURDIR)/,$(FUZZ_SEEDS))

fuzz-regress: $(FUZZ_BIN)
	$(FUZZ_BIN) -runs=0 $(FUZZ_SEEDS)
