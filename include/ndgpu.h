/*
 * libndgpu - a NumPy/CuPy-style n-dimensional array library in C.
 *
 * The public API. Include this header (#include <ndgpu.h>): it holds the
 * version macros and includes every family header under ndgpu/, each of
 * which declares one family and stands alone after ndgpu/core.h:
 *
 *   ndgpu/core.h         the base: ND_API, ND_MAX_DIMS, ND_AXIS_NONE,
 *                        nd_array, status codes and errors, library
 *                        information and threads, dtypes and promotion,
 *                        weak scalars, devices
 *   ndgpu/array.h        references, creation, copies, casts, host/device
 *                        transfers, inspection
 *   ndgpu/runtime.h      memory pools and statistics, streams and events,
 *                        pinned host memory, asynchronous copies
 *   ndgpu/elementwise.h  the op table, nd_unary / nd_binary and their named
 *                        wrappers, where, clip, the functions beyond the
 *                        table (divmod, round, isclose, complex parts, ...),
 *                        loss scaling for mixed precision
 *   ndgpu/reduce.h       nd_reduce and its wrappers, nan-aware reductions,
 *                        scans and diff, softmax family, cross-entropy
 *   ndgpu/sort.h         sorting, searching, sets, order statistics
 *   ndgpu/index.h        take / put, nonzero, boolean masks, ufunc.at
 *   ndgpu/manip.h        views, joins and splits, roll, tile, repeat, pad,
 *                        diag/tril/triu, trace, meshgrid
 *   ndgpu/linalg.h       products (matmul, dot, gemm, einsum, ...) and
 *                        numpy.linalg (decompositions, solvers, norms)
 *   ndgpu/fft.h          numpy.fft
 *   ndgpu/random.h       the Philox generator and its distributions
 *   ndgpu/io.h           .npy files, DLPack
 *   ndgpu/profiler.h     the op-level profiler
 *   ndgpu/expr.h         fused expressions (nd_expr_eval)
 *   ndgpu/sparse.h       sparse matrices (CSR, CSC, COO; scipy.sparse)
 *
 * The families follow the library's source folders (src/<family>); every
 * family header depends on ndgpu/core.h only (ndgpu/sparse.h also on
 * ndgpu/elementwise.h, for its op enums), and they are included here in
 * the order above.
 *
 * Conventions (see README.md and docs/arrays.md):
 *
 *  - Every fallible function returns nd_status (ND_OK == 0). On failure
 *    nothing leaks, *out is untouched, and nd_last_error() returns a
 *    thread-local message naming the function and the offending argument.
 *  - Results come back through an out-pointer, the first parameter:
 *    nd_add(&c, a, b) reads "c = a + b".
 *  - THE OUT-POINTER RULE (NumPy's out=): if *out == NULL the function
 *    allocates the result and stores a new reference in *out (yours to
 *    nd_release). If *out != NULL the result is written into *out, which
 *    must have the result's shape, live on the same device and accept the
 *    result dtype under "same_kind" casting (ND_ERR_SHAPE / ND_ERR_DEVICE /
 *    ND_ERR_DTYPE otherwise), and be writable: a broadcast view (a stride-0
 *    axis of extent > 1) or a read-only DLPack import is ND_ERR_INVALID.
 *    Exact aliasing of an input is allowed (in place); partial overlap gives
 *    NumPy's result (inputs are copied first). On failure *out is neither
 *    replaced nor written. View-making functions follow the same rule: with
 *    *out != NULL the view's elements are copied into *out.
 *    A fresh result is C-contiguous, except that an elementwise op (unary,
 *    binary, nd_where) whose full-shape inputs agree on another memory
 *    order gives its result that order (NumPy's order='K': nd_exp of a.T is
 *    laid out like a.T); nd_contiguous() gives C order when you need it.
 *  - Every nd_array* the library gives you is yours: nd_release() it.
 *  - The library never aborts, prints or exits.
 *  - Thread-safe for distinct arrays.
 */
#ifndef NDGPU_H
#define NDGPU_H

#define ND_VERSION_MAJOR 0
#define ND_VERSION_MINOR 1
#define ND_VERSION_PATCH 0

#include "ndgpu/core.h"
#include "ndgpu/array.h"
#include "ndgpu/runtime.h"
#include "ndgpu/elementwise.h"
#include "ndgpu/reduce.h"
#include "ndgpu/sort.h"
#include "ndgpu/index.h"
#include "ndgpu/manip.h"
#include "ndgpu/linalg.h"
#include "ndgpu/fft.h"
#include "ndgpu/random.h"
#include "ndgpu/io.h"
#include "ndgpu/profiler.h"
#include "ndgpu/kernel.h"
#include "ndgpu/expr.h"
#include "ndgpu/sparse.h"

#endif /* NDGPU_H */
