/* Run-time compiled elementwise kernels: the contract of the backend slot
 * `kernel_ew` (src/core/backend.h) between the family (src/kernel/: the
 * parameters, the types, the broadcasting, the generated source) and the
 * backends that compile and run it (src/cpu/kjit.c: the system C compiler
 * and dlopen).
 *
 * The family generates one translation unit per specialisation (the
 * kernel's body with every type placeholder and every operand's storage
 * dtype fixed, and the layout class: contiguous or general). For a backend
 * with this slot (the CPU) the unit is C and defines
 *
 *     void nd_k_range(const nd_k_args *a, int64_t begin, int64_t end)
 *
 * (C, visible) which computes elements [begin, end) of the broadcast
 * iteration in C order; element i reads and writes operand k at
 * a->data[k] + sum_d idx_d(i) * a->strides[k][d] (byte strides over
 * a->shape, 0 along broadcast axes). Raw operands are C-contiguous, read
 * or written by the body at any index below a->size[k].
 *
 * The backend compiles the unit (cached in memory per specialisation
 * handle and on disk through src/core/kcache.h), then runs nd_k_range
 * over [0, a->n) in whatever pieces it likes: the kernel's elements are
 * independent unless call->ordered (the body indexes raw operands, which
 * may couple elements: one piece, in order, on one thread).
 */
#ifndef ND_KERNEL_SLOTS_H
#define ND_KERNEL_SLOTS_H
#include <stdbool.h>
#include <stdint.h>

#include "ndgpu.h"

/* Operands of one kernel (outputs, inputs and raw ones together). */
#define ND_K_MAX_OPS 12

/* The argument block: written by the family, read by the generated code,
 * whose unit declares the same struct from ND_K_ARGS_TEXT (one text for
 * both, so the layouts cannot drift). */
#define ND_K_ARGS_STRUCT                                                                             \
    struct nd_k_args {                                                                               \
        int64_t n;                                                                                   \
        int64_t ndim;                                                                                \
        int64_t shape[32];                                                                           \
        int64_t size[12];                                                                            \
        char *data[12];                                                                              \
        int64_t strides[12][32];                                                                     \
    }
#define ND_K_STR2(x) #x
#define ND_K_STR(x) ND_K_STR2(x)
#define ND_K_ARGS_TEXT ND_K_STR(ND_K_ARGS_STRUCT)
typedef ND_K_ARGS_STRUCT nd_k_args;
/* The literal sizes above are ND_MAX_DIMS and ND_K_MAX_OPS (the text is
 * stringified before those macros could expand). */
#ifdef __cplusplus
static_assert(sizeof(((nd_k_args *)0)->shape) == ND_MAX_DIMS * sizeof(int64_t), "nd_k_args.shape");
static_assert(sizeof(((nd_k_args *)0)->data) == ND_K_MAX_OPS * sizeof(char *), "nd_k_args.data");
#else
_Static_assert(sizeof(((nd_k_args *)0)->shape) == ND_MAX_DIMS * sizeof(int64_t), "nd_k_args.shape");
_Static_assert(sizeof(((nd_k_args *)0)->data) == ND_K_MAX_OPS * sizeof(char *), "nd_k_args.data");
#endif

/* One call of a specialisation. */
typedef struct nd_k_call {
    const char *func;   /* the public function, for messages */
    const char *name;   /* the kernel's name (the source's #line file name) */
    const char *src;    /* the translation unit (NUL-terminated) */
    void **handle;      /* the specialisation's compiled-code slot: NULL until the
                         * backend compiles or finds it; kept by the family
                         * for later calls, never freed (the code stays
                         * loaded for the process, as CuPy's modules do) */
    const nd_k_args *args;
    int dev_id;         /* the device's id within the backend */
    bool ordered;       /* raw operands: run [0, n) in order on one thread */
    int64_t cost;       /* rough work per element (1 for a plain add) */
} nd_k_call;

/* The shared headers a generated unit may include (`#include
 * "shared/half.h"`), embedded in the library at build time from
 * src/shared/ (tools/embed.sh), so that an installed library compiles
 * kernels without its sources. */
#ifdef __cplusplus
extern "C" {
#endif
extern const char *const nd__kernel_header_names[] __attribute__((visibility("hidden")));
extern const char *const nd__kernel_header_texts[] __attribute__((visibility("hidden")));
extern const int nd__kernel_header_count __attribute__((visibility("hidden")));
#ifdef __cplusplus
}
#endif
#endif
