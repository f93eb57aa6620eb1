/* Small float32/float64 matrix products without BLAS (src/cpu/matmul_small.c).
 *
 * A cblas call costs a few hundred nanoseconds of argument checks, buffer
 * management and packing, more than a 16x16x16 product itself. Matrices
 * with M, N, K <= ND_SMALL_DIM (and M*N*K <= ND_SMALL_MNK) use an own
 * register-blocked kernel per CPU path instead (src/cpu/isa.h): AVX-512
 * or AVX2+FMA; the baseline path (and non-x86 builds) has none and goes
 * to BLAS. The AVX-512 path also takes medium matrices, M, N, K <=
 * ND_MEDIUM_DIM with M*N*K > ND_MEDIUM_MNK_MIN (src/cpu/matmul.c says
 * which layouts): there OpenBLAS packs both operands per call and the
 * kernel, which reads them in place, was faster (100 x 128^3, one Zen 4
 * core: 5.5 against 6.0 ms in float32, 11.2 against 12.5 ms in float64);
 * from 32^3 to 64^3, OpenBLAS's unpacked small-matrix kernels were the
 * faster ones (256 x 64^3 float32 1.40 against 1.52 ms). */
#ifndef ND_CPU_MATMUL_SMALL_H
#define ND_CPU_MATMUL_SMALL_H
#include "cpu/isa.h"

#define ND_SMALL_DIM 64
#define ND_SMALL_MNK 32768.0
#define ND_MEDIUM_DIM 128
#define ND_MEDIUM_MNK_MIN (64.0 * 64.0 * 64.0)

/* C (M x N, row stride crs, unit column stride) = A (M x K, element
 * strides ars, acs: any) @ B (K x N, row stride brs, unit column stride),
 * all float32 or all float64; M, N, K >= 1 (no size limit). Each element
 * of C is the k-ordered chain of FMAs, so a kernel's result does not
 * depend on the tiling or the thread that runs it (the AVX2 and AVX-512
 * kernels give the same bits as well: both are that chain). */
typedef void (*nd_small_mm_fn)(int64_t M, int64_t N, int64_t K, const void *A, int64_t ars, int64_t acs,
                               const void *B, int64_t brs, void *C, int64_t crs);

/* The kernel of path isa for float64 (f64) or float32; NULL when that path
 * has none. isa must not exceed nd__cpu_isa_detected(). */
ND_INTERNAL nd_small_mm_fn nd__small_mm_kernel(nd_cpu_isa isa, bool f64);
#endif
