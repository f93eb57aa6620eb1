/* The CUDA backend as seen from the core (C linkage; compiled by nvcc).
 * So far: device discovery and information. Arrays on CUDA devices get
 * their backend table from the CUDA backend issues (part 1: memory, pools,
 * transfers; part 2: kernels); until then nd__cuda_backend() returns NULL
 * and the core answers ND_ERR_UNSUPPORTED for CUDA arrays on a GPU machine. */
#ifndef ND_CUDA_BACKEND_H
#define ND_CUDA_BACKEND_H
#include "internal.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Number of usable devices; 0 when there is no driver or no GPU
 * (cudaErrorInsufficientDriver, cudaErrorNoDevice, or any other failure). */
ND_INTERNAL int nd__cuda_device_count(void);
/* Why nd__cuda_device_count() is 0, e.g. "CUDA driver not found". */
ND_INTERNAL const char *nd__cuda_unavailable_reason(void);
ND_INTERNAL nd_status nd__cuda_device_info(nd_device_info *info, int id);
/* "CUDA runtime 13.0, driver ..." */
ND_INTERNAL void nd__cuda_build_info(char *buf, size_t cap);
ND_INTERNAL const nd_backend *nd__cuda_backend(void);
#ifdef __cplusplus
}
#endif
#endif
