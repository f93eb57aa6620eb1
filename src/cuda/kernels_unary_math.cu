// CUDA unary kernels: the FLOAT ops (exp, log, sin, ...) on the float loop dtypes.
// Generated from the op table by src/cuda/ew_kernels.cuh; the kernels of
// one op table are split over several files so that make -j compiles them
// in parallel.
#include "cuda/ew_kernels.cuh"

#define ND_CU_SEL_SAME(K, X, ...)
#define ND_CU_SEL_BOOL(K, X, ...)
#define ND_CU_SEL_FLOAT(K, X, ...) ND_OP_LOOPS_FLT(K, FLOAT, X, __VA_ARGS__)
#define ND_CU_SEL_DIV(K, X, ...) ND_OP_LOOPS_FLT(K, DIV, X, __VA_ARGS__)
#define ND_CU_SEL_F64(K, X, ...)
ND_CU_UNARY_PART(math)
