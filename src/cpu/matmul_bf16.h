/* bfloat16 matrix products with float32 accumulation on the CPU: own
 * kernels for Intel AMX (TDPBF16PS on 16x16 float32 tiles) and AVX512-BF16
 * (VDPBF16PS), chosen once (src/cpu/matmul_bf16.c says why these are our
 * own and not oneDNN's). Everywhere else, and for float16, src/cpu/matmul.c
 * widens the operands to float32 and calls OpenBLAS sgemm.
 *
 * The kernel path in use: AMX where the CPU and OS have it, AVX512-BF16 on
 * AMD CPUs that have that and no AMX, else sgemm (matmul_bf16.c says why
 * not AVX512-BF16 on Intel); ND_CPU_BF16=amx|avx512_bf16|sgemm chooses
 * any path the CPU has (read once; a request above what it has is
 * clamped; every path runs in `make test-isa`), and the path is "sgemm"
 * whenever the CPU path (ND_CPU_ISA, src/cpu/isa.h) is below avx512.
 * nd_build_info() names it ("bfloat16 GEMM: amx"). */
#ifndef ND_CPU_MATMUL_BF16_H
#define ND_CPU_MATMUL_BF16_H
#include "core/internal.h"

typedef enum nd_bf16_path { ND_BF16_SGEMM = 0, ND_BF16_AVX512 = 1, ND_BF16_AMX = 2, ND_BF16_N } nd_bf16_path;

/* The path in use; fixed after the first call. */
ND_INTERNAL nd_bf16_path nd__bf16_path(void);
/* The best path this CPU and OS support (AMX needs the kernel's permission
 * for the tile data state, asked for here). */
ND_INTERNAL nd_bf16_path nd__bf16_path_detected(void);
/* "amx", "avx512_bf16", "sgemm". */
ND_INTERNAL const char *nd__bf16_path_name(nd_bf16_path p);

/* C (M x N) = alpha * A (M x K) @ B (K x N) + beta * C with A and B
 * bfloat16 and C bfloat16 or float32 (tc), every matrix given by the
 * address of element (0, 0) and strides in elements (any sign, any
 * layout). Products of bfloat16 values are exact in float32 and are summed
 * in float32 over all of K; a bfloat16 C is rounded once, to nearest even,
 * at the end. Like the hardware, both kernels treat subnormal inputs as
 * zero and flush subnormal partial sums (an absolute error below 2^-126
 * per term). Needs nd__bf16_path() != ND_BF16_SGEMM, M, N, K >= 1. Returns
 * false when scratch memory could not be allocated (it may run on a
 * worker thread, so it sets no error message). */
ND_INTERNAL bool nd__bf16_gemm(int64_t M, int64_t N, int64_t K, double alpha, const void *A, int64_t ars,
                               int64_t acs, const void *B, int64_t brs, int64_t bcs, double beta, void *C, nd_dtype tc,
                               int64_t crs, int64_t ccs);
#endif
