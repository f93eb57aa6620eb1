/*
 * The reductions' entry points: nd_reduce, nd_reduce_ddof and the named
 * wrappers (nd_sum, nd_mean, ...), each with its profiler event, and
 * nd__reduce_run, which the op families call: complex input goes to
 * src/reduce/complex.c (composed from the real reductions of the parts), the
 * rest to the real engine in src/reduce/reduce.c. Above both, so that neither
 * calls the other back.
 */
#include "core/internal.h"
#include "core/prof_hooks.h"
#include "reduce/complex.h"

nd_status nd__reduce_run(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                         const int *axes, bool keepdims, double ddof)
{
    /* the real engine makes the pointer, op and dtype checks (with their
     * messages) for every input it is given */
    if (out && a && (unsigned)op < (unsigned)ND_NUM_REDUCE_OPS && nd__dtype_valid(a->dtype) &&
        nd__is_complex(a->dtype))
        return nd__reduce_cpx(fn, out, op, a, naxes, axes, keepdims, ddof);
    return nd__reduce_real(fn, out, op, a, naxes, axes, keepdims, ddof);
}

/* The profiler's event name (an invalid op still gets one: its call fails). */
static const char *prof_name(nd_reduce_op op)
{
    const char *n = nd_reduce_op_name(op);
    return n ? n : "reduce";
}

/* The profiled copy of a reduction (ND_PRH_HOT in src/core/prof_hooks.h). */
static ND_PRH_COLD nd_status reduce_prof(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                                         const int *axes, bool keepdims, double ddof)
{
    ND_PROF_OP(prof_name(op), out, a);
    return nd__reduce_run(fn, out, op, a, naxes, axes, keepdims, ddof);
}

nd_status nd_reduce(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PRH_HOT(reduce_prof("nd_reduce", out, op, a, naxes, axes, keepdims, 0),
               nd__reduce_run("nd_reduce", out, op, a, naxes, axes, keepdims, 0));
}

nd_status nd_reduce_ddof(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes, bool keepdims,
                         double ddof)
{
    ND_PRH_HOT(reduce_prof("nd_reduce_ddof", out, op, a, naxes, axes, keepdims, ddof),
               nd__reduce_run("nd_reduce_ddof", out, op, a, naxes, axes, keepdims, ddof));
}

#define X(E, n)                                                                                 \
    nd_status nd_##n(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims) \
    {                                                                                           \
        ND_PRH_HOT(reduce_prof("nd_" #n, out, ND_REDUCE_##E, a, naxes, axes, keepdims, 0),          \
                   nd__reduce_run("nd_" #n, out, ND_REDUCE_##E, a, naxes, axes, keepdims, 0));         \
    }
ND_REDUCE_OPS(X)
#undef X
