/*
 * libndgpu: fused expressions - nd_expr_eval evaluates an elementwise
 * expression over named arrays in one pass over memory (NumPy users'
 * numexpr, CuPy's fuse), with the bits of the same chain of the library's
 * own ops. The language and its semantics in full: docs/expr.md.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_EXPR_H
#define NDGPU_EXPR_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The language (Python's expression syntax, NumPy 2's semantics):
 *
 *  - operands by name (the names given to nd_expr_eval: letters, digits
 *    and '_', not starting with a digit);
 *  - literals: integers (42), floats (0.1, 1e-3, .5), imaginary (2j),
 *    true/false (or True/False). Literals are WEAK scalars (NEP 50, as
 *    nd_scalar_*: Python numbers in NumPy 2): "x * 0.5" on float16 x stays
 *    float16, "i + 1" on int8 i stays int8 (a literal out of the array's
 *    range is an error, as in NumPy). Operations on two literals are
 *    folded with Python's arithmetic ("x * (2 * 3)" is "x * 6");
 *  - operators, by increasing precedence (Python's):
 *      == != < <= > >=    (no chains: write (a < b) & (b < c))
 *      |   ^   &          bitwise_or / xor / and (logical on bool)
 *      << >>              left_shift / right_shift
 *      + -                add / subtract
 *      * / // %           multiply / divide / floor_divide / remainder
 *      unary - + ~        negative / positive / bitwise_not
 *      **                 power (right-associative, -x**2 == -(x**2))
 *    and parentheses;
 *  - calls: every op of ND_UNARY_OPS and ND_BINARY_OPS by its name (exp,
 *    tanh, log1p, sqrt, maximum, arctan2, ...), where(c, x, y) (nd_where),
 *    a dtype name as a cast (float32(x), int64(x): nd_astype);
 *  - as the outermost call only, a reduction of the elementwise part:
 *    sum, prod, max, min, mean, with axis=k, axis=(j, k) or no axis (all
 *    axes), as nd_reduce (keepdims false).
 *
 * Every step has the dtype, and every element the bits, of the library's
 * own op for that step (nd_binary, nd_binary_scalar for a literal operand,
 * nd_unary, nd_where, nd_astype): the fused evaluation runs the very loops
 * the unfused ops run, block by block. Limits: 4096 characters, 64 levels
 * of nesting, 256 operands/literals/operations, 64 names; a program over
 * more than 16 arrays, and integer power with an array exponent, is
 * evaluated op by op (same result, with temporaries).
 *
 * Devices: the CPU runs the expression fused (blocks of a few hundred
 * elements through the library's loops, intermediates in per-thread
 * buffers, in parallel over the thread pool). CUDA runs it as one kernel
 * compiled at run time by NVRTC from the bodies the backend's own kernels
 * use (once per expression, dtypes and layout class, cached in memory and
 * on disk; the same bits as the unfused chain). Where no NVRTC can be
 * loaded, CUDA evaluates it op by op with the library's own ops (same
 * bits, a temporary per step).
 *
 * The parsed and typed program is cached per (expression, names, operand
 * dtypes): 32 entries, least recently used out, shared by all threads. A
 * compiled handle is not offered: a cached call costs one lookup.
 */

/** out = the value of expr over the arrays args[k] named names[k]
 *  (k < nargs; names must be distinct; arrays not named in expr are not
 *  read). The operands broadcast together (NumPy's rules); the result has
 *  the broadcast shape and the dtype the chain of the library's ops gives
 *  (nd_reduce's for a reduction), on the arrays' device (all on one; an
 *  expression without arrays, "2.5 * 3", gives a 0-d array on the CPU). The out-pointer rule as every op:
 *  *out == NULL gives a new array, else the result is written into *out
 *  (shape, device, same_kind casting, writable; exactly an input is fine);
 *  on failure *out is untouched.
 *  Errors: ND_ERR_INVALID for NULL arguments, a bad name, and every
 *  error of the expression - a syntax error, an unknown name or function,
 *  a wrong argument count, a literal out of range - with a message
 *  naming the column ("nd_expr_eval: unknown name 'd' at column 13 in
 *  \"a * b + exp(d)\""); ND_ERR_DTYPE for a dtype an op does not take
 *  (also with the column); ND_ERR_SHAPE when the operands do not
 *  broadcast; ND_ERR_DEVICE when the arrays are on different devices;
 *  ND_ERR_NOMEM. The profiler records one op "expr" per call (a device
 *  without the fused path also records the steps it runs as their ops). */
ND_API nd_status nd_expr_eval(nd_array **out, const char *expr, int nargs, const char *const *names,
                              const nd_array *const *args);

/** Empty the cache of compiled expressions (tests, leak checkers); calls
 *  running meanwhile keep the programs they hold. Never fails. */
ND_API void nd_expr_cache_clear(void);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_EXPR_H */
