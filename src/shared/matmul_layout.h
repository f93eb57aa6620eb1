/* The matmul layout analysis shared by both backends: how a BLAS call can
 * read a strided matrix without a copy. src/cpu/matmul.c (CBLAS,
 * row-major calls) and src/cuda/blas_plan.h (cuBLAS, column-major calls,
 * also run on the CPU by tests/test_gpu_linalg.c) both ask this one
 * function; ND_HOSTDEV, no runtime calls.
 *
 * A rows x cols matrix with element strides (rs, cs) is
 *  - ND_MM_ROW: row-major, ld = rs (cs == 1, rs >= max(1, cols)); read
 *    column-major it is the matrix's transpose;
 *  - ND_MM_COL: column-major, ld = cs (rs == 1, cs >= max(1, rows)); read
 *    row-major it is the transpose;
 *  - ND_MM_COPY: neither (no unit stride, a zero or negative stride, an
 *    ld too small, or an ld above max_ld, the BLAS's integer limit): the
 *    caller packs it.
 * Size-1 dimensions have no meaningful stride: such a matrix takes
 * whichever layout fits, with the smallest valid ld (BLAS wants
 * ld >= max(1, extent of the stored rows)). ROW is tried first. */
#ifndef ND_MATMUL_LAYOUT_H
#define ND_MATMUL_LAYOUT_H
#include <stdint.h>

#include "shared/hostdev.h"

enum { ND_MM_COPY = -1, ND_MM_ROW = 0, ND_MM_COL = 1 };

ND_HOSTDEV static inline int nd_mm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t max_ld,
                                          int64_t *ld)
{
    int64_t mc = cols > 1 ? cols : 1, mr = rows > 1 ? rows : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= mc)) {
        *ld = rows <= 1 ? mc : rs;
        if (*ld <= max_ld) return ND_MM_ROW;
    }
    if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= mr)) {
        *ld = cols <= 1 ? mr : cs;
        if (*ld <= max_ld) return ND_MM_COL;
    }
    *ld = 0;
    return ND_MM_COPY;
}
#endif
