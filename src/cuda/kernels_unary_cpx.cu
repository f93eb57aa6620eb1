// CUDA unary kernels on complex64/complex128: every rule of the
// ops whose kinds column has a C, with the shared bodies of src/shared/ops_cpx.h
// and src/shared/ops_cpx_math.h. Generated from the op table by
// src/cuda/ew_kernels.cuh.
#include "cuda/ew_kernels.cuh"

#define ND_CU_SEL_SAME(K, X, ...) ND_OP_LOOPS_CPX(K, SAME, X, __VA_ARGS__)
#define ND_CU_SEL_BOOL(K, X, ...) ND_OP_LOOPS_CPX(K, BOOL, X, __VA_ARGS__)
#define ND_CU_SEL_FLOAT(K, X, ...) ND_OP_LOOPS_CPX(K, FLOAT, X, __VA_ARGS__)
#define ND_CU_SEL_DIV(K, X, ...) ND_OP_LOOPS_CPX(K, DIV, X, __VA_ARGS__)
#define ND_CU_SEL_F64(K, X, ...) ND_OP_LOOPS_CPX(K, F64, X, __VA_ARGS__)
ND_CU_UNARY_PART(cpx)
