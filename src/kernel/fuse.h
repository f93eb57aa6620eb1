/* Fused expression programs (src/shared/expr_prog.h) on a device that
 * compiles CUDA through the rtc slots (src/core/rtc_slot.h): the expr
 * family (src/expr) calls this where the device's backend has no expr slot
 * of its own.
 *
 * One CUDA C++ unit per (program, layout class): the program's steps are
 * the very bodies the CUDA backend's elementwise kernels call
 * (src/shared/ops_math.h through the same op table, the casts of
 * src/shared/convert.h, where as a select), in order, element by element,
 * compiled with --fmad=false as the backend is (no a*b+c contracted), so a
 * fused chain gives the unfused chain's bits on the device. Layout
 * classes: flat (every operand contiguous over one merged axis, or a
 * broadcast scalar: which ones is part of the class) and general (byte
 * strides over the merged axes). Compiled on the first use of a class,
 * cached per device in *specs and by the rtc slots in memory and on disk. */
#ifndef ND_KERNEL_FUSE_H
#define ND_KERNEL_FUSE_H
#include "core/internal.h"
#include "shared/expr_prog.h"

struct nd_backend;

/* The argument block of a fused unit, one text for the library and the
 * generated code (as ND_K_ARGS_STRUCT): operand 0 is the output, 1 + k
 * the program's argument k (17 is 1 + ND_EXPR_MAX_ARGS); at most
 * ND_X_MAX_DIMS axes after merging (more: op by op); the program's
 * constants travel here as bits, not in the unit's text, so that the
 * device compiler cannot fold them (a literal exponent 2 would turn a
 * pow into a product the unfused kernel does not compute) and programs
 * that differ only in constants share one unit (64 is
 * ND_EXPR_MAX_CONSTS). Under 4 KiB, every GPU's parameter limit. */
#define ND_X_MAX_DIMS 16
#define ND_X_ARGS_STRUCT                                                                             \
    struct nd_x_args {                                                                               \
        int64_t n;                                                                                   \
        int64_t ndim;                                                                                \
        int64_t shape[16];                                                                           \
        char *data[17];                                                                              \
        int64_t strides[17][16];                                                                     \
        uint64_t consts[64][2];                                                                      \
    }
typedef ND_X_ARGS_STRUCT nd_x_args;
_Static_assert(sizeof(((nd_x_args *)0)->shape) == ND_X_MAX_DIMS * sizeof(int64_t), "nd_x_args.shape");
_Static_assert(sizeof(((nd_x_args *)0)->data) == (1 + ND_EXPR_MAX_ARGS) * sizeof(char *), "nd_x_args.data");
_Static_assert(sizeof(((nd_x_args *)0)->consts) == ND_EXPR_MAX_CONSTS * 16, "nd_x_args.consts");
_Static_assert(sizeof(nd_x_args) <= 4096, "nd_x_args within the kernel parameter limit");

typedef struct nd_fuse_specs nd_fuse_specs;

/* Whether be can run fused programs this way (it has the rtc slots, and
 * no compile on it has yet reported that no compiler exists). */
ND_INTERNAL bool nd__fuse_rtc_usable(const struct nd_backend *be);
/* Run p into dst (dtype p->res) from ins[0 .. p->nargs) (each of dst's
 * shape: broadcast views), on dst's device. *specs holds the compiled
 * classes of this program (NULL at first; nd__fuse_specs_free). Errors:
 * the rtc slots'; ND_ERR_UNSUPPORTED when no compiler is found or the
 * operands need more than ND_X_MAX_DIMS axes: nothing was written, the
 * caller evaluates op by op instead. */
ND_INTERNAL nd_status nd__fuse_rtc_run(const char *func, const struct nd_backend *be, const nd_expr_prog *p,
                                       nd_array *dst, const nd_array *const *ins, nd_fuse_specs **specs);
ND_INTERNAL void nd__fuse_specs_free(nd_fuse_specs *s);
/* The CUDA unit of p for a layout class: scalar[k] (k = 0 .. p->nargs)
 * marks operand k (0 the output, never scalar) as one element read with
 * stride 0; flat: every other operand is contiguous over a single axis.
 * NULL when out of memory or when p holds a step no body exists for
 * (nd__free the result). */
ND_INTERNAL char *nd__kgen_expr(const nd_expr_prog *p, const bool *scalar, bool flat);
#endif
