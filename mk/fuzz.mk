# Fuzzing with libFuzzer (clang, ASan + UBSan): five targets.
#   fuzz_npy     the .npy parser (nd_load_npy_buffer)
#   fuzz_sparse_npz  the sparse .npz reader (nd_sparse_load_npz_buffer: zip,
#                DEFLATE, .npy members, matrix validation)
#   fuzz_shapes  the shape builders: creation, views, broadcasting, joins,
#                tiling, padding, products, FFT lengths, DLPack imports
#   fuzz_sparse_ops  the sparse API on hostile matrices (parts, shapes up
#                to INT64_MAX, every operation), dense products checked
#   fuzz_expr    the expression language (nd_expr_eval: tokenizer, parser,
#                folding, typing, the fused CPU evaluation)
#
#   make fuzz                 build them and fuzz each for FUZZ_SECONDS (default 60)
#   make fuzz-regress         run the seeds and the golden files once (no fuzzing)
#   make fuzz-build           only build the $(BUILD)/fuzz/fuzz_* binaries
#
# The library sources are compiled once (-fsanitize=fuzzer-no-link, CPU
# only) into $(BUILD)/fuzz/obj and linked into both fuzzers.
# Needs clang and its runtime (Debian: clang, libclang-rt-14-dev) and libomp
# (libomp-dev). New interesting inputs go to $(BUILD)/fuzz/corpus-<target>;
# a crash leaves crash-* / leak-* / timeout-* files in $(BUILD)/fuzz/
# (reproduce with `$(BUILD)/fuzz/fuzz_<target> FILE`).

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_CFLAGS := -std=c11 -g1 -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -Wno-pass-failed -fopenmp -D_GNU_SOURCE \
                   -Iinclude -Isrc $(BLAS_CFLAGS)
FUZZ_CFLAGS := -std=c11 -g1 -O1 $(FUZZ_SAN) -fsanitize=fuzzer -Wno-pass-failed -fopenmp -D_GNU_SOURCE -Iinclude -Isrc $(BLAS_CFLAGS)
FUZZ_TARGETS := npy shapes sparse_npz sparse_ops expr
FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
# The library's sources plus the generated one (the shared headers a
# run-time compiled kernel includes, embedded as strings: Makefile).
FUZZ_OBJS := $(SRCS:%.c=$(BUILD)/fuzz/obj/%.o) $(BUILD)/fuzz/obj/gen/kernel_headers.o
FUZZ_SEEDS_npy := tests/fuzz/corpus tests/data
FUZZ_SEEDS_shapes := tests/fuzz/corpus-shapes
FUZZ_SEEDS_sparse_npz := tests/data/sparse
FUZZ_SEEDS_expr := tests/fuzz/corpus-expr
FUZZ_SEEDS_sparse_ops := tests/fuzz/corpus-sparse-ops

.PHONY: fuzz fuzz-build fuzz-regress
fuzz-build: $(FUZZ_BINS)

$(FUZZ_OBJS): $(BLAS_STAMP)
$(BUILD)/fuzz/obj/%.o: %.c $(wildcard include/*.h include/ndgpu/*.h src/*/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/obj/gen/kernel_headers.o: $(BUILD)/gen/kernel_headers.c src/shared/kernel_slots.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_reader.h $(FUZZ_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_OBJS) $(BLAS_LIBS) -lz -lm -lpthread

# -malloc_limit_mb: a single request over 2 GiB is a finding (the library
# must refuse impossible sizes before asking the system allocator).
# FUZZ_JOBS targets fuzz at a time (each on one thread: the targets set the
# library's pool to 1), each for FUZZ_SECONDS; their output is printed
# target by target as each ends, and the run fails when any target found
# something. CI uses 2 on its 2 cores: the same fuzzing per target in half
# the time.
FUZZ_JOBS ?= 1
fuzz: $(FUZZ_BINS)
	@logs=$$(mktemp -d); trap 'rm -rf "$$logs"' EXIT; running=0; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/corpus-$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  dict=$(CURDIR)/tests/fuzz/$$t.dict; [ -f $$dict ] && dictarg=-dict=$$dict || dictarg=; \
	  case $$t in npy) s="$(FUZZ_SEEDS_npy)";; shapes) s="$(FUZZ_SEEDS_shapes)";; expr) s="$(FUZZ_SEEDS_expr)";; \
	    sparse_ops) s="$(FUZZ_SEEDS_sparse_ops)";; \
	    *) s="$(FUZZ_SEEDS_sparse_npz)";; esac; \
	  seeds=; for d in $$s; do seeds="$$seeds $(CURDIR)/$$d"; done; \
	  ( cd $(BUILD)/fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
	      -malloc_limit_mb=2048 $$dictarg -print_final_stats=1 corpus-$$t $$seeds > "$$logs/$$t.log" 2>&1; \
	    rc=$$?; echo "---- fuzz: $$t (exit status $$rc)"; cat "$$logs/$$t.log"; exit $$rc ) & \
	  running=$$((running + 1)); \
	  if [ $$running -ge $(FUZZ_JOBS) ]; then wait -n || fail=1; running=$$((running - 1)); fi; \
	done; \
	while [ $$running -gt 0 ]; do wait -n || fail=1; running=$$((running - 1)); done; \
	[ -z "$${fail:-}" ] || { echo "fuzz: a target failed (its output above)"; exit 1; }

fuzz-regress: $(FUZZ_BINS)
	$(BUILD)/fuzz/fuzz_npy -runs=0 $(FUZZ_SEEDS_npy)
	$(BUILD)/fuzz/fuzz_shapes -runs=0 $(FUZZ_SEEDS_shapes)
	$(BUILD)/fuzz/fuzz_sparse_npz -runs=0 $(FUZZ_SEEDS_sparse_npz)
	$(BUILD)/fuzz/fuzz_expr -runs=0 $(FUZZ_SEEDS_expr)
	$(BUILD)/fuzz/fuzz_sparse_ops -runs=0 $(FUZZ_SEEDS_sparse_ops)
