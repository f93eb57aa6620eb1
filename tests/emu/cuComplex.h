/*
 * The emulated GPU's <cuComplex.h> (make emu-test): the subset of the CUDA
 * toolkit's cuComplex.h that libndgpu and the cuBLAS stand-in use, with its
 * names. In the toolkit cuFloatComplex is float2 and cuDoubleComplex double2
 * (x = real part, y = imaginary part; alignment 8 and 16), and the real
 * <cublas_v2.h> includes this header (through cublas_api.h), so
 * tests/emu/cublas_v2.h includes it too. The emulated runtime has no
 * float2/double2, so the two are structs of that layout (as
 * tests/emu/cufft.h does for cufftComplex). Emulation builds put tests/emu
 * first on the include path, so `#include <cuComplex.h>` finds this file.
 * Never part of a library users build.
 */
#ifndef ND_EMU_CUCOMPLEX_H
#define ND_EMU_CUCOMPLEX_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __attribute__((aligned(8))) nd_emu_cuFloatComplex {
    float x, y;
} cuFloatComplex;
typedef struct __attribute__((aligned(16))) nd_emu_cuDoubleComplex {
    double x, y;
} cuDoubleComplex;
typedef cuFloatComplex cuComplex;

static inline float cuCrealf(cuFloatComplex z) { return z.x; }
static inline float cuCimagf(cuFloatComplex z) { return z.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i)
{
    cuFloatComplex z;
    z.x = r;
    z.y = i;
    return z;
}
static inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }

static inline double cuCreal(cuDoubleComplex z) { return z.x; }
static inline double cuCimag(cuDoubleComplex z) { return z.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i)
{
    cuDoubleComplex z;
    z.x = r;
    z.y = i;
    return z;
}

#ifdef __cplusplus
}
#endif
#endif
