/* Raw CUDA kernels (src/kernel/raw.c): what the tests may ask beside the
 * public API (include/ndgpu/kernel.h). */
#ifndef ND_KERNEL_RAW_H
#define ND_KERNEL_RAW_H
#include "core/internal.h"

/* Where m's image for dev came from (ND_RTC_COMPILED, _FROM_MEMORY,
 * _FROM_DISK of src/core/rtc_slot.h), or -1 when m is not compiled for dev. */
ND_INTERNAL int nd__raw_module_origin(const nd_raw_module *m, nd_device dev);
#endif
