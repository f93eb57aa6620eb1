// CUDA binary kernels on complex64/complex128: the SAME, FLOAT,
// DIV and F64 ops whose kinds column has a C (the BOOL ones, equal and the
// logical ops, are in kernels_binary_cmp.cu with the other comparisons),
// with the shared bodies of src/shared/ops_cpx.h and src/shared/ops_cpx_math.h.
#include "cuda/ew_kernels.cuh"

#define ND_CU_SEL_SAME(K, X, ...) ND_OP_LOOPS_CPX(K, SAME, X, __VA_ARGS__)
#define ND_CU_SEL_BOOL(K, X, ...)
#define ND_CU_SEL_FLOAT(K, X, ...) ND_OP_LOOPS_CPX(K, FLOAT, X, __VA_ARGS__)
#define ND_CU_SEL_DIV(K, X, ...) ND_OP_LOOPS_CPX(K, DIV, X, __VA_ARGS__)
#define ND_CU_SEL_F64(K, X, ...) ND_OP_LOOPS_CPX(K, F64, X, __VA_ARGS__)
ND_CU_BINARY_PART(cpx)
