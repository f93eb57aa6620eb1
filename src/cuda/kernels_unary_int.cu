// CUDA unary kernels: the SAME and BOOL ops on bool and the integers.
// Generated from the op table by src/cuda/ew_kernels.cuh; the kernels of
// one op table are split over several files so that make -j compiles them
// in parallel.
#include "cuda/ew_kernels.cuh"

#define ND_CU_SEL_SAME(K, X, ...) ND_OP_LOOPS_INT(K, SAME, X, __VA_ARGS__)
#define ND_CU_SEL_BOOL(K, X, ...) ND_OP_LOOPS_INT(K, BOOL, X, __VA_ARGS__)
#define ND_CU_SEL_FLOAT(K, X, ...)
#define ND_CU_SEL_DIV(K, X, ...)
#define ND_CU_SEL_F64(K, X, ...)
ND_CU_UNARY_PART(int)
