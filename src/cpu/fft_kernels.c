/* The FFT loops per precision and ISA path (src/cpu/fft_tmpl.h, included
 * once per instance) and the choice among them (nd__cpu_isa()). */
#include <stdint.h>
#include <string.h>

#include "cpu/fft_impl.h"

#define T float
#define TSZ 4
#define VB 16
#define TGT
#define SFX f_base
#define TMPL_BASE 1
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE

#define T double
#define TSZ 8
#define VB 16
#define TGT
#define SFX d_base
#define TMPL_BASE 1
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE

#if ND_ISA_X86
#define T float
#define TSZ 4
#define VB 32
#define TGT ND_ISA_TARGET_AVX2
#define SFX f_avx2
#define TMPL_BASE 0
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE

#define T double
#define TSZ 8
#define VB 32
#define TGT ND_ISA_TARGET_AVX2
#define SFX d_avx2
#define TMPL_BASE 0
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE

#define T float
#define TSZ 4
#define VB 64
#define TGT ND_ISA_TARGET_AVX512
#define SFX f_avx512
#define TMPL_BASE 0
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE

#define T double
#define TSZ 8
#define VB 64
#define TGT ND_ISA_TARGET_AVX512
#define SFX d_avx512
#define TMPL_BASE 0
#include "cpu/fft_tmpl.h"
#undef T
#undef TSZ
#undef VB
#undef TGT
#undef SFX
#undef TMPL_BASE
#endif

#define KERN(P, B)                                                                                      \
    {                                                                                                   \
        run_##P, gather_##P, scatter_##P, cmul_rows_##P, fourstep_tw_##P, r2c_post_##P, c2r_pre_##P,    \
            herm_fill_##B                                                                               \
    }

static const fft_kern kern_f[ND_ISA_N] = {
    KERN(f_base, f_base),
#if ND_ISA_X86
    KERN(f_avx2, f_base),
    KERN(f_avx512, f_base),
#endif
};
static const fft_kern kern_d[ND_ISA_N] = {
    KERN(d_base, d_base),
#if ND_ISA_X86
    KERN(d_avx2, d_base),
    KERN(d_avx512, d_base),
#endif
};

const fft_kern *nd__fft_kern(bool dbl)
{
    int isa = ND_ISA_X86 ? (int)nd__cpu_isa() : 0;
    return dbl ? &kern_d[isa] : &kern_f[isa];
}
