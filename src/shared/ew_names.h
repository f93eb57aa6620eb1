/* The names of the elementwise ops ("add", "exp"), from the op table of
 * the public header: the family's nd_unary_op_name / nd_binary_op_name,
 * its profiler events and both backends' messages read them here. NULL
 * for a value that is not an op. */
#ifndef ND_EW_NAMES_H
#define ND_EW_NAMES_H
#include "ndgpu.h"

#define ND__EW_UNAME(E, n, k, r) [ND_UNARY_##E] = #n,
#define ND__EW_BNAME(E, n, k, r) [ND_BINARY_##E] = #n,

static inline const char *nd__unary_name(nd_unary_op op)
{
    static const char *const names[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND__EW_UNAME)};
    return (unsigned)op < (unsigned)ND_NUM_UNARY_OPS ? names[op] : NULL;
}

static inline const char *nd__binary_name(nd_binary_op op)
{
    static const char *const names[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND__EW_BNAME)};
    return (unsigned)op < (unsigned)ND_NUM_BINARY_OPS ? names[op] : NULL;
}

#endif /* ND_EW_NAMES_H */
