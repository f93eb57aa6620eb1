# Command-line tools built on the library.
#
#   make tools        build $(BUILD)/ndgpu-info (also part of `make`)
#   make info         build and run it
#   make test-tools   smoke test: ndgpu-info plain and --json (the JSON is
#                     validated with python3 -m json.tool when python3 exists)

.PHONY: tools info test-tools
all: tools
TOOL_BINS := $(BUILD)/ndgpu-info
tools: $(TOOL_BINS)

# Linked statically against libndgpu.a: the installed tool needs no rpath.
# Header dependencies from -MMD ($(BUILD)/ndgpu-info.d, included by the Makefile).
$(BUILD)/ndgpu-info: tools/ndgpu-info.c $(BUILD)/ndgpu-info.d $(LIB_A)
	$(CC) $(CFLAGS_ALL) -MMD -MP -o $@ $< $(LIB_A) $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

info: $(BUILD)/ndgpu-info
	$(BUILD)/ndgpu-info

test-tools: $(BUILD)/ndgpu-info
	@bash tests/test_tools.sh $(BUILD)/ndgpu-info

extra-tests:: test-tools
