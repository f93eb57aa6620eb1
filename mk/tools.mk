# Command-line tools built on the library.
#
#   make tools        build $(BUILD)/ndgpu-info (also part of `make`)
#   make info         build and run it
#   make test-tools   smoke test: ndgpu-info plain and --json (the JSON is
#                     validated with python3 -m json.tool when python3 exists)
#   make test-monitor ndgpu-info --watch against this machine and against a
#                     fake NVML ($(BUILD)/tests/libfake_nvml.so)

.PHONY: tools info test-tools test-monitor
all: tools
TOOL_BINS := $(BUILD)/ndgpu-info
# ndgpu-info.c (the report and the options), ndgpu_watch.c (--watch) and
# nvml_dl.c (NVML through dlopen): the tool's own objects, not the library's.
TOOL_OBJS := $(BUILD)/tools/ndgpu-info.o $(BUILD)/tools/ndgpu_watch.o $(BUILD)/tools/nvml_dl.o
FAKE_NVML := $(BUILD)/tests/libfake_nvml.so
tools: $(TOOL_BINS)

$(BUILD)/tools/%.o: tools/%.c $(BUILD)/tools/%.d | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# Linked statically against libndgpu.a: the installed tool needs no rpath.
# No -ldl: dlopen is in glibc's libc since 2.34 (Debian 12 has 2.36).
$(BUILD)/ndgpu-info: $(TOOL_OBJS) $(LIB_A)
	$(CC) $(CFLAGS_ALL) -o $@ $(TOOL_OBJS) $(LIB_A) $(LDLIBS_ALL) $(if $(CU_OBJS),-lstdc++)

# A stand-in for libnvidia-ml.so.1 with fixed values (ND_NVML_LIBRARY=...).
$(FAKE_NVML): tests/fake_nvml.c | $(BUILD)/.dirs
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -shared -fPIC -o $@ $<

info: $(BUILD)/ndgpu-info
	$(BUILD)/ndgpu-info

test-tools: $(BUILD)/ndgpu-info
	@bash tests/test_tools.sh $(BUILD)/ndgpu-info

test-monitor: $(BUILD)/ndgpu-info $(FAKE_NVML)
	@bash tests/test_monitor.sh $(BUILD)/ndgpu-info $(FAKE_NVML)

extra-tests:: test-tools test-monitor

-include $(TOOL_OBJS:.o=.d)
