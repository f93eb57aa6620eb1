/* Internal helpers shared by src/elementwise/elementwise.c (unary, binary, scalars,
 * named wrappers) and src/elementwise/select.c (where, clip). */
#ifndef ND_ELEMENTWISE_H
#define ND_ELEMENTWISE_H
#include "core/internal.h"
#include "core/out.h"

/* The rule column of the op table (ND_EW_RULE_##rule). */
typedef enum { ND_EW_RULE_SAME, ND_EW_RULE_FLOAT, ND_EW_RULE_DIV, ND_EW_RULE_BOOL, ND_EW_RULE_F64 } nd_ew_rule;

/* Test hook (tests/test_coverage.c): the loop dtype this process has
 * resolved for a unary (binary = false) or binary op on the promoted input
 * dtype `in` (every dispatch resolves through the memo of
 * src/elementwise/elementwise.c), or -1 when none yet. */
ND_INTERNAL int nd__ew_resolved_loop(bool binary, int op, nd_dtype in);

/* ND_ERR_DEVICE unless a and b (named an, bn) live on the same device. */
ND_INTERNAL nd_status nd__ew_same_device(const char *func, const nd_array *a, const char *an, const nd_array *b,
                                         const char *bn);
/* The backend of dev, ND_ERR_UNSUPPORTED when it has no elementwise ops. */
ND_INTERNAL nd_status nd__ew_backend(const char *func, nd_device dev, const nd_backend **be);
/* a cast to dtype (only when needed) and broadcast to (ndim, shape) (only
 * when needed): *view is what the backend reads, *cast the new reference
 * to release (NULL when a is used as is). */
ND_INTERNAL nd_status nd__ew_input(const char *func, const nd_array *a, nd_dtype dtype, int ndim, const int64_t *shape,
                                   nd_array **cast, const nd_array **view);
/* op(a, b) with the promoted input dtype `in` already decided (op valid,
 * a, b, out non-NULL). named: func is the op's own wrapper. */
ND_INTERNAL nd_status nd__ew_binary(const char *func, bool named, nd_array **out, nd_binary_op op, const nd_array *a,
                                    const nd_array *b, nd_dtype in);
/* op(a, s) (op(s, a) when scalar_left) with a weak scalar; validates
 * everything. */
ND_INTERNAL nd_status nd__ew_scalar(const char *func, nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s,
                                    bool scalar_left);
/* nd_unary / nd_binary with messages naming func (for the compositions of
 * src/elementwise/extra.c). */
ND_INTERNAL nd_status nd__ew_unary_op(const char *func, nd_array **out, nd_unary_op op, const nd_array *a);
ND_INTERNAL nd_status nd__ew_binary_op(const char *func, nd_array **out, nd_binary_op op, const nd_array *a,
                                       const nd_array *b);
/* The dtypes of the library's own ops, for callers that plan a chain of
 * them (src/expr): what nd_unary / nd_binary / nd_binary_scalar compute
 * in and give, from the same code those functions use. Errors (with
 * messages naming func) as those functions report them.
 *  unary:  the loop dtype the input is cast to, the result dtype;
 *  binary: the loop dtype both inputs are cast to, the loop's result
 *          dtype (*opres) and the op's result (*res: differs from *opres
 *          only for ldexp on bfloat16, computed in float32 and rounded once);
 *  scalar: op(a, s) (op(s, a) when scalar_left) with a weak scalar: *s
 *          becomes the value the op reads (logical ops: its truth), *sdt
 *          the dtype the scalar is stored in; with *strong (ldexp) the
 *          scalar then takes part as a 0-d array of dtype *sdt (plan it
 *          with nd__ew_binary_types), else *in is the promoted input
 *          dtype, *loop the loop dtype (== *sdt) and *res the result. */
ND_INTERNAL nd_status nd__ew_unary_types(const char *func, nd_unary_op op, nd_dtype a, nd_dtype *loop, nd_dtype *res);
ND_INTERNAL nd_status nd__ew_binary_types(const char *func, nd_binary_op op, nd_dtype a, nd_dtype b, nd_dtype *loop,
                                          nd_dtype *opres, nd_dtype *res);
ND_INTERNAL nd_status nd__ew_scalar_types(const char *func, nd_binary_op op, nd_dtype a, nd_scalar *s, bool scalar_left,
                                          nd_dtype *sdt, nd_dtype *in, nd_dtype *loop, nd_dtype *res, bool *strong);
/* ND_ERR_INVALID unless s is a bool, int or float scalar. */
ND_INTERNAL nd_status nd__ew_check_scalar(const char *func, nd_scalar s, const char *name);
/* ND_ERR_INVALID "Python integer V out of bounds for T". */
ND_INTERNAL nd_status nd__ew_out_of_bounds(const char *func, nd_scalar s, nd_dtype t);
/* A view of complex z's real (which = 0) or imaginary (1) part. */
ND_INTERNAL nd_status nd__cpx_part(nd_array **v, const nd_array *z, int which);
#endif
