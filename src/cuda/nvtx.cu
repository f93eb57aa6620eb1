// The backend's range slots: NVTX ranges, so that nd_range_push/pop show
// in Nsight Systems (and any NVTX tool). nvtx3 is header-only (the CUDA
// toolkit's include/nvtx3): it costs a branch while no tool is attached
// and loads the tool named by NVTX_INJECTION64_PATH when one is. The
// emulated build finds the same headers after its own include path
// (mk/emu.mk); without them the slots do nothing.
#include "cuda_backend.h"

#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
extern "C" void nd__cuda_range_push(const char *name) { (void)nvtxRangePushA(name); }
extern "C" void nd__cuda_range_pop(void) { (void)nvtxRangePop(); }
#else
extern "C" void nd__cuda_range_push(const char *name) { (void)name; }
extern "C" void nd__cuda_range_pop(void) {}
#endif
