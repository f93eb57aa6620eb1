// CUDA binary kernels: the SAME, DIV and FLOAT ops on the float dtypes.
// Generated from the op table by src/cuda/ew_kernels.cuh; the kernels of
// one op table are split over several files so that make -j compiles them
// in parallel.
#include "cuda/ew_kernels.cuh"

#define ND_CU_SEL_SAME(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_CU_SEL_BOOL(X, ...)
#define ND_CU_SEL_FLOAT(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_CU_SEL_DIV(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
ND_CU_BINARY_PART(flt)
