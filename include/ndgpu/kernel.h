/*
 * libndgpu: your own kernels, compiled at run time - elementwise kernels
 * from a C body (CuPy's ElementwiseKernel), one source for every device.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 * Guide: docs/kernels.md.
 */
#ifndef NDGPU_KERNEL_H
#define NDGPU_KERNEL_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Elementwise kernels                                                 */
/* ------------------------------------------------------------------ */
/* A kernel is a body of C statements run once per element of the
 * broadcast of its inputs, as CuPy's ElementwiseKernel:
 *
 *     nd_kernel *k;
 *     nd_kernel_elementwise(&k, "T x, T y, float32 a", "T z",
 *                           "z = a * x + y", "saxpy", NULL);
 *     nd_array *z = NULL;
 *     nd_kernel_call(k, 3, (const nd_array *[]){x, y, a}, 1, &z);
 *
 * Parameters: comma-separated "[raw] TYPE NAME". TYPE is a dtype name
 * (bool, int8 ... uint64, float16, bfloat16, float32, float64) or a type
 * placeholder (any other identifier, such as T): a placeholder takes the
 * dtype of the arrays passed for it, which must agree, and outputs of that
 * placeholder get it too. An array passed for a typed input may have
 * another dtype that casts to it under NumPy's same_kind rule; it is
 * converted element by element as it is read. In the body, an input is a
 * const value of its type, an output a variable whose value is stored when
 * the body ends (it starts as the output's current element, so "z += x"
 * accumulates into a given output), `i` is the element's index in the C
 * order of the broadcast shape and `n` the number of elements. float16
 * and bfloat16 operands are float values in the body (rounded to nearest
 * even when stored); bool values are bool.
 *
 * Scalars: pass a 0-d array (its one value is used for every element).
 * Raw parameters ("raw T w") are not broadcast: the body indexes them,
 * w[j] for 0 <= j < w_size (the array's element count, a variable named
 * after the parameter), in C order; a raw input is read from a
 * C-contiguous copy when it is not contiguous, a raw output must be given,
 * C-contiguous, of its exact dtype. A kernel with raw parameters runs on
 * one thread on the CPU (its elements may depend on each other through
 * them).
 *
 * The body is C that is also CUDA C++: expressions and statements over
 * bool, the <stdint.h> integer types (int32_t ...), float and double,
 * local variables, if/for/while, and the math functions of <math.h> by
 * their generic names (exp, tanh, fabs, fmin, pow ...: on a float they
 * compute in float, as CUDA's overloads do, through <tgmath.h> in C). Not
 * allowed: function definitions, #include, C++-only or C-only constructs
 * (templates, references, lambdas; _Generic, compound literals,
 * designated initializers), complex operands (ND_ERR_UNSUPPORTED). A
 * kernel has at most 12 parameters; names are C identifiers other than
 * i, n and those starting with "nd_" or "_", unique, and a raw
 * parameter's "<name>_size" is taken too.
 *
 * Compilation: on first use with each combination of operand dtypes and
 * layout class (all operands contiguous or scalars, or general strides),
 * the CPU backend compiles the kernel with the system C compiler ($ND_CC,
 * else cc) for the running CPU (-O3 -march=native, no FMA contraction, so
 * a*b+c gives the bits of nd_multiply then nd_add) and loads it; the
 * result is cached in the process and on disk ($ND_KERNEL_CACHE_DIR, else
 * $XDG_CACHE_HOME/ndgpu/kernels, else ~/.cache/ndgpu/kernels;
 * ND_KERNEL_CACHE=0 turns the disk cache off; delete the directory to
 * clear it). A compile error is ND_ERR_INVALID with the compiler's
 * message, its lines numbered within the body and named after the
 * kernel ("saxpy:1:5: error: ..."); no compiler is ND_ERR_UNSUPPORTED
 * naming the one it looked for. Nothing is printed. */
typedef struct nd_kernel nd_kernel;
/** Options of the run-time compiled kernels (NULL: the defaults). */
typedef struct nd_kernel_options nd_kernel_options;

/** A kernel computing out_params from in_params with body (see above),
 *  named name (a C identifier: it names the kernel in messages and in the
 *  profiler). Checks the parameter lists and the name; the body is
 *  compiled at the first call. ND_ERR_INVALID: NULL arguments, a malformed
 *  or duplicate parameter, no output, more than 12 parameters;
 *  ND_ERR_UNSUPPORTED: a complex parameter. opts: NULL (no options yet). */
ND_API nd_status nd_kernel_elementwise(nd_kernel **k, const char *in_params, const char *out_params, const char *body,
                                       const char *name, const nd_kernel_options *opts);
/** Run k over the broadcast of its non-raw inputs in[0..nin) (nin the
 *  number of input parameters, in their order), writing out[0..nout):
 *  each out[j] follows the out rule (NULL: a new C-contiguous array of
 *  the broadcast shape and the parameter's dtype; an array: the result is
 *  written into it, cast under same_kind when its dtype differs). All
 *  arrays on one device; the call is one op for the profiler, named after
 *  the kernel, and queued on the device's current stream like any op.
 *  ND_ERR_INVALID: counts, NULL arrays, a compile error (message above);
 *  ND_ERR_DTYPE: placeholder dtypes that disagree or cannot be inferred,
 *  a cast that same_kind refuses; ND_ERR_SHAPE: inputs that do not
 *  broadcast, a raw output that is too small for nothing (an output with
 *  no broadcast input names the iteration shape by its own);
 *  ND_ERR_DEVICE: mixed devices; ND_ERR_UNSUPPORTED: no compiler, or a
 *  device whose backend does not compile kernels. */
ND_API nd_status nd_kernel_call(nd_kernel *k, int nin, const nd_array *const *in, int nout, nd_array **out);
/** The kernel's name (as given). NULL for NULL. */
ND_API const char *nd_kernel_name(const nd_kernel *k);
/** Release k (NULL is fine). Its compiled code stays loaded for the
 *  process; a later kernel with the same body finds it. */
ND_API void nd_kernel_release(nd_kernel *k);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_KERNEL_H */
