/* The fuzzer's stand-in for the CPU FFT engine (mk/fuzz.mk). The engine
 * (src/cpu/fft_core.c, fft_exec.c, fft_kernels.c) is written with GCC's
 * vector extensions (__builtin_shuffle), which clang lacks; the fuzzer is
 * built with clang and exercises the .npy parser, never an FFT, so the
 * engine's entry points here only say "out of memory" (the FFT functions
 * then return ND_ERR_NOMEM) and the rest of the library links unchanged. */
#include "cpu/fft_core.h"

nd_fft_plan *nd__fft_plan_get(int64_t n, bool dbl)
{
    (void)n, (void)dbl;
    return NULL;
}
void nd__fft_plan_release(nd_fft_plan *p) { (void)p; }
int64_t nd__fft_plan_n(const nd_fft_plan *p)
{
    (void)p;
    return 0;
}
bool nd__fft_plan_dbl(const nd_fft_plan *p)
{
    (void)p;
    return false;
}
void nd__fft_cache_clear(void) {}
bool nd__fft_c2c(nd_fft_plan *p, int sign, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    (void)p, (void)sign, (void)howmany, (void)in, (void)istride, (void)idist, (void)out, (void)ostride, (void)odist;
    (void)scale;
    return false;
}
bool nd__fft_r2c(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    (void)p, (void)howmany, (void)in, (void)istride, (void)idist, (void)out, (void)ostride, (void)odist, (void)scale;
    return false;
}
bool nd__fft_c2r(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    (void)p, (void)howmany, (void)in, (void)istride, (void)idist, (void)out, (void)ostride, (void)odist, (void)scale;
    return false;
}
