/*
 * The out-transaction: the one implementation of the out-pointer rule
 * (include/ndgpu.h, "THE OUT-POINTER RULE"; NumPy's out=). Every public
 * function that takes `nd_array **out` goes through it:
 *
 *     nd_out t;
 *     if ((st = nd__out_begin(&t, func, out, dtype, ndim, shape, dev))) return st;
 *     ... prepare inputs ...
 *     if ((st = nd__out_target(&t, dtype, ND_OUT_EXACT_DTYPE, n, ins))) goto done;
 *     st = backend op writing t.dst;
 * done:
 *     return nd__out_end(&t, st);
 *
 * begin checks a user's *out (shape, device, same_kind casting from the
 * result dtype, writability: no stride-0 axis of extent > 1, not read-only)
 * or allocates a fresh C-contiguous result when *out == NULL (an elementwise
 * op then calls nd__out_keep_order: NumPy's order="K"). target picks
 * where the computation writes: the result itself, or a temporary when the
 * result cannot take the backend's write directly (wrong dtype, not
 * contiguous when the op needs that, or overlapping an input in a way the op
 * cannot tolerate). end copies a temporary back (casting, same_kind), hands a
 * fresh result to *out on success, and on failure releases everything it
 * made and leaves *out untouched.
 *
 * A function that has its result already computed (a view, a composition
 * of other ops, a result of another dtype) hands it over in one step:
 *
 *     return nd__out_deliver(func, out, &r, dtype, 0);
 *
 * which is the same transaction with a copy as the op (see below).
 */
#ifndef ND_OUT_H
#define ND_OUT_H
#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_out {
    const char *func;
    nd_array **out; /* the caller's out-pointer */
    nd_array *res;  /* the result: a fresh array or the caller's *out (borrowed) */
    nd_array *dst;  /* where the op writes: res or tmp (set by nd__out_target) */
    nd_array *tmp;  /* a temporary of the computed dtype, or NULL */
    bool fresh;     /* res was allocated by begin */
} nd_out;

/* Flags of nd__out_target: what the op's write needs from its destination. */
enum {
    /* the op writes exactly the computed dtype (a kernel, not a casting copy) */
    ND_OUT_EXACT_DTYPE = 1u << 0,
    /* the op writes a C-contiguous destination */
    ND_OUT_CONTIGUOUS = 1u << 1,
    /* element i of the result depends only on element i of each input, so an
     * input that is exactly the destination (same view) is fine in place;
     * without this flag any overlap with an input takes a temporary */
    ND_OUT_ELEMENTWISE = 1u << 2,
    /* nd__out_deliver with *out == NULL: a new array even when the computed
     * array could be handed over (it is an input, or a view of one, that
     * the caller must not receive) */
    ND_OUT_COPY = 1u << 3,
    /* nd__out_deliver: the computed array holds the values in a wider
     * dtype; they are rounded to the result dtype first, then cast into
     * the caller's out (the result is the rounded one, whatever out's
     * dtype) */
    ND_OUT_ROUND = 1u << 4,
};

/* Check the caller's *out against the result (shape, device, dtype under
 * same_kind, writable), or allocate a fresh result when *out == NULL. On
 * failure the status comes back with a message naming func, and nothing
 * needs releasing (nd__out_end may still be called). */
ND_INTERNAL nd_status nd__out_begin(nd_out *t, const char *func, nd_array **out, nd_dtype dtype, int ndim,
                                    const int64_t *shape, nd_device dev);
/* NumPy's order='K' for a fresh elementwise result: when begin allocated
 * the result (t->fresh) and the inputs that span the whole result (same
 * ndim and shape, no broadcasting) agree on one memory order of the axes
 * that is not C order (a transposed or Fortran-ordered input), the result
 * is re-strided to that order, so that np.exp(a.T) and nd_exp(a.T) both
 * give a result laid out like a.T (its .T is C-contiguous) and the loop
 * runs over contiguous memory on both sides. Inputs that disagree, or any
 * broadcast input, keep C order (NumPy's iterator makes finer choices
 * there; C order is always valid). Called between begin and target. */
ND_INTERNAL void nd__out_keep_order(nd_out *t, int nin, const nd_array *const *ins);
/* Only the checks of begin, for a function that delegates the computation
 * but must refuse a bad out before anything runs. */
ND_INTERNAL nd_status nd__out_check(const char *func, const nd_array *o, nd_dtype dtype, int ndim, const int64_t *shape,
                                    nd_device dev);
/* Whether writing o could write one memory location twice (a stride-0
 * axis of extent > 1) or is refused (a read-only import); func names the
 * caller in the message, ND_OK when o may be written. */
ND_INTERNAL nd_status nd__out_check_writable(const char *func, const nd_array *o, const char *name);
/* Set t->dst: the result itself, or a temporary C-contiguous array of
 * dtype `computed` (on the result's device) when flags say the result
 * cannot take the write (see above); ins are the arrays the op reads. */
ND_INTERNAL nd_status nd__out_target(nd_out *t, nd_dtype computed, unsigned flags, int nin,
                                     const nd_array *const *ins);
/* Finish: with st == ND_OK copy a temporary into the result and hand a fresh
 * result to *out; otherwise (or if that copy fails) release what the
 * transaction made, leave *out untouched and return the failure (messages
 * prefixed with func). Returns the final status. */
ND_INTERNAL nd_status nd__out_end(nd_out *t, nd_status st);
/* Hand a computed array *res (one reference, consumed: *res is NULL
 * afterwards, on failure too) to the caller as the result of func, whose
 * dtype is `dtype` and whose shape and device are *res's:
 *  - *out == NULL: *out = *res itself when it has that dtype (and is
 *    C-contiguous where flags has ND_OUT_CONTIGUOUS, and flags has no
 *    ND_OUT_COPY), else a fresh C-contiguous array with *res's values cast
 *    to dtype;
 *  - *out != NULL: the checks of nd__out_begin against dtype (shape,
 *    device, same_kind, writable), then *res's values are cast once,
 *    straight into *out (any overlap with *res is safe), or with
 *    ND_OUT_ROUND rounded to dtype first.
 * On failure *out is neither replaced nor written and the message names
 * func. */
ND_INTERNAL nd_status nd__out_deliver(const char *func, nd_array **out, nd_array **res, nd_dtype dtype,
                                      unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
