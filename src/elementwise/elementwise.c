/*
 * Elementwise ops, the core side: validation, broadcasting, NEP 50
 * promotion (weak scalars), the loop dtype of each op (from the kinds and
 * rule columns of ND_UNARY_OPS / ND_BINARY_OPS), the out-pointer rule and
 * dispatch to the backend of the arrays' device. The ops themselves live
 * in src/shared/ops_math.h and the backends' loops.
 *
 * The clip and where entry points are in src/elementwise/select.c.
 */
#include <string.h>

#include "elementwise/elementwise.h"
#include "shared/ew_names.h"
#include "core/prof_hooks.h"

/* ------------------------------------------------------------------ */
/* The op table, derived from the X-macro lists                        */
/* ------------------------------------------------------------------ */
#define ND_EW_UKINDS(E, n, k, r) [ND_UNARY_##E] = #k,
#define ND_EW_BKINDS(E, n, k, r) [ND_BINARY_##E] = #k,
#define ND_EW_URULE(E, n, k, r) [ND_UNARY_##E] = ND_EW_RULE_##r,
#define ND_EW_BRULE(E, n, k, r) [ND_BINARY_##E] = ND_EW_RULE_##r,

static const char *const unary_kinds[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND_EW_UKINDS)};
static const char *const binary_kinds[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND_EW_BKINDS)};
static const nd_ew_rule unary_rules[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND_EW_URULE)};
static const nd_ew_rule binary_rules[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND_EW_BRULE)};

const char *nd_unary_op_name(nd_unary_op op)
{
    return nd__unary_name(op);
}

const char *nd_binary_op_name(nd_binary_op op)
{
    return nd__binary_name(op);
}

/* profiler event names (an invalid op still gets a name: its call fails) */
static const char *prof_uname(nd_unary_op op) { return nd__unary_name(op) ? nd__unary_name(op) : "unary"; }
static const char *prof_bname(nd_binary_op op) { return nd__binary_name(op) ? nd__binary_name(op) : "binary"; }

/* ------------------------------------------------------------------ */
/* Shared helpers (declared in src/elementwise/elementwise.h)                      */
/* ------------------------------------------------------------------ */
nd_status nd__ew_same_device(const char *func, const nd_array *a, const char *an, const nd_array *b, const char *bn)
{
    if (nd__same_device(a->device, b->device)) return ND_OK;
    char d1[32], d2[32];
    return nd__err(ND_ERR_DEVICE, func, "'%s' is on %s but '%s' is on %s", an, nd__device_name(a->device, d1, sizeof d1),
                   bn, nd__device_name(b->device, d2, sizeof d2));
}

nd_status nd__ew_backend(const char *func, nd_device dev, const nd_backend **be)
{
    const nd_backend *b = nd__backend(dev);
    if (b == NULL || b->unary == NULL || b->binary == NULL || b->where == NULL) {
        char d[32];
        return nd__err(ND_ERR_UNSUPPORTED, func, "elementwise ops are not available on %s", nd__device_name(dev, d, sizeof d));
    }
    *be = b;
    return ND_OK;
}

static bool same_shape(const nd_array *a, int ndim, const int64_t *shape)
{
    if (a->ndim != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (a->shape[i] != shape[i]) return false;
    return true;
}

nd_status nd__ew_input(const char *func, const nd_array *a, nd_dtype dtype, int ndim, const int64_t *shape,
                       nd_array **cast, const nd_array **view)
{
    *cast = NULL;
    const nd_array *src = a;
    if (a->dtype != dtype) {
        nd_status st = nd__as_dtype(cast, a, dtype);
        if (st) return nd__err_prefix(st, func);
        src = *cast;
    }
    if (!same_shape(src, ndim, shape)) {
        nd_array *v;
        nd_status st = nd__broadcast_view(&v, src, ndim, shape);
        if (st) {
            nd_release(*cast);
            *cast = NULL;
            return nd__err_prefix(st, func);
        }
        nd_release(*cast);
        *cast = v;
        src = v;
    }
    *view = src;
    return ND_OK;
}

/* The loop dtype and result dtype of an op for the promoted input dtype. */
static nd_status resolve(const char *func, const char *opname, bool named, const char *kinds, nd_ew_rule rule,
                         nd_dtype in, nd_dtype *loop, nd_dtype *res)
{
    char kc;
    switch (nd__kind(in)) {
    case ND_KIND_BOOL: kc = 'B'; break;
    case ND_KIND_INT: kc = 'I'; break;
    case ND_KIND_UINT: kc = 'U'; break;
    case ND_KIND_COMPLEX: kc = 'C'; break;
    default: kc = 'F'; break;
    }
    nd_dtype lt = in;
    if (kc == 'B' && strchr(kinds, 'b') != NULL) {
        lt = ND_INT8; /* NumPy computes these on bool as int8 */
    } else if (strchr(kinds, kc) == NULL && !(kc == 'C' && strchr(kinds, 'a') != NULL)) {
        if (named) return nd__err(ND_ERR_DTYPE, func, "no loop for dtype %s", nd_dtype_name(in));
        return nd__err(ND_ERR_DTYPE, func, "op '%s' has no loop for dtype %s", opname, nd_dtype_name(in));
    }
    switch (rule) {
    case ND_EW_RULE_SAME: *res = lt; break;
    case ND_EW_RULE_FLOAT: lt = nd__float_for(lt); *res = lt; break;
    case ND_EW_RULE_DIV:
        if (!nd__is_float(lt) && kc != 'C') lt = ND_FLOAT64;
        *res = lt;
        break;
    case ND_EW_RULE_F64: lt = kc == 'C' ? ND_COMPLEX128 : ND_FLOAT64; *res = lt; break;
    default: *res = ND_BOOL; break;
    }
    if (kc == 'C' && strchr(kinds, 'a') != NULL) *res = nd__real_of(lt); /* abs: |z| is real */
    *loop = lt;
    return ND_OK;
}

/* resolve() memoised per (op, input dtype) for the successful cases:
 * 0 = not yet known (or an error, which is recomputed for its message),
 * else 1 + (loop | res << 8) (shifts, not a division: this is the
 * per-call path). Relaxed atomics: racing threads store the same value. */
typedef uint16_t memo_t;
_Static_assert(ND_NUM_DTYPES < 255, "the resolve memo packs (loop, res) into one byte each");
static _Atomic memo_t unary_memo[ND_NUM_UNARY_OPS][ND_NUM_DTYPES];
static _Atomic memo_t binary_memo[ND_NUM_BINARY_OPS][ND_NUM_DTYPES];
static inline nd_dtype memo_loop(unsigned m) { return (nd_dtype)((m - 1) & 0xff); }
static inline nd_dtype memo_res(unsigned m) { return (nd_dtype)((m - 1) >> 8); }

static inline nd_status resolve_memo(_Atomic memo_t *slot, const char *func, const char *opname, bool named,
                                     const char *kinds, nd_ew_rule rule, nd_dtype in, nd_dtype *loop, nd_dtype *res)
{
    unsigned m = atomic_load_explicit(slot, memory_order_relaxed);
    if (ND_LIKELY(m != 0)) {
        *loop = memo_loop(m);
        *res = memo_res(m);
        return ND_OK;
    }
    nd_status st = resolve(func, opname, named, kinds, rule, in, loop, res);
    if (st == ND_OK)
        atomic_store_explicit(slot, (memo_t)(1 + ((unsigned)*loop | (unsigned)*res << 8)), memory_order_relaxed);
    return st;
}

/* ------------------------------------------------------------------ */
/* The direct path: operands that need no cast, no broadcast and no    */
/* temporary go straight to the backend (no allocation but a fresh     */
/* result, no views, no iterator set-up in the core).                  */
/* ------------------------------------------------------------------ */
/* Whether x is C-contiguous with o's dtype-independent geometry (same
 * shape as o) and on o's device. */
static inline bool direct_operand(const nd_array *x, const nd_array *o)
{
    if (x->ndim != o->ndim || !nd__same_device(x->device, o->device)) return false;
    int64_t s = 1;
    for (int i = x->ndim - 1; i >= 0; i--) {
        if (x->shape[i] != o->shape[i]) return false;
        if (x->strides[i] != s && x->shape[i] != 1) return false;
        s *= x->shape[i];
    }
    return true;
}

/* Whether a user 'out' o takes the direct path's write: C-contiguous (so
 * not broadcast) and writable. Every out it accepts passes the
 * out-transaction's checks (src/core/out.h) too. */
static inline bool direct_out(const nd_array *o) { return !o->readonly && direct_operand(o, o); }

/* Whether the result o (contiguous, checked by the caller) and input x
 * (contiguous, same shape) are either the same elements or disjoint. */
static inline bool direct_no_overlap(const nd_array *o, const nd_array *x)
{
    uintptr_t po = (uintptr_t)nd__ptr(o), px = (uintptr_t)nd__ptr(x);
    uintptr_t no = (uintptr_t)o->size * nd__itemsize(o->dtype), nx = (uintptr_t)x->size * nd__itemsize(x->dtype);
    return (po == px && no == nx && o->dtype == x->dtype) || po + no <= px || px + nx <= po;
}

/* ------------------------------------------------------------------ */
/* Unary                                                               */
/* ------------------------------------------------------------------ */
static nd_status unary_impl(const char *func, bool named, nd_array **out, nd_unary_op op, const nd_array *a)
{
    ND_CHECK_PTR(func, out, "out");
    if ((unsigned)op >= (unsigned)ND_NUM_UNARY_OPS)
        return nd__err(ND_ERR_INVALID, func, "invalid unary op %d", (int)op);
    ND_CHECK_PTR(func, a, "a");
    nd_dtype loop = ND_BOOL, res = ND_BOOL;
    nd_status st = nd__dtype_valid(a->dtype)
                       ? resolve_memo(&unary_memo[op][a->dtype], func, nd__unary_name(op), named, unary_kinds[op],
                                      unary_rules[op], a->dtype, &loop, &res)
                       : resolve(func, nd__unary_name(op), named, unary_kinds[op], unary_rules[op], a->dtype, &loop, &res);
    if (st) return st;
    nd_array *o = *out;
    const nd_backend *fast = nd__backend(a->device); /* the direct path, where the backend has one */
    if (a->dtype == loop && fast && fast->unary_flat &&
        (o == NULL || (o->dtype == res && direct_out(o))) && direct_operand(a, o ? o : a) &&
        (o == NULL || direct_no_overlap(o, a))) {
        if (o == NULL && (st = nd__alloc(&o, res, a->ndim, a->shape, a->device))) return nd__err_prefix(st, func);
        fast->unary_flat(op, loop, nd__ptr(o), nd__ptr(a), a->size);
        *out = o;
        return ND_OK;
    }
    const nd_backend *be = NULL;
    if ((st = nd__ew_backend(func, a->device, &be))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, func, out, res, a->ndim, a->shape, a->device))) return st;
    nd__out_keep_order(&t, 1, &a);
    nd_array *ca = NULL;
    const nd_array *va;
    if ((st = nd__ew_input(func, a, loop, a->ndim, a->shape, &ca, &va))) goto done;
    if ((st = nd__out_target(&t, res, ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, 1, &va))) goto done;
    st = be->unary(op, t.dst, va);
done:
    nd_release(ca);
    return nd__out_end(&t, st);
}

/* The profiled copy of a unary op (ND_PRH_HOT in src/core/prof_hooks.h). */
static ND_PRH_COLD nd_status unary_prof(const char *func, bool named, nd_array **out, nd_unary_op op, const nd_array *a)
{
    ND_PROF_OP(prof_uname(op), out, a);
    return unary_impl(func, named, out, op, a);
}

nd_status nd_unary(nd_array **out, nd_unary_op op, const nd_array *a)
{
    ND_PRH_HOT(unary_prof("nd_unary", false, out, op, a), unary_impl("nd_unary", false, out, op, a));
}

/* ------------------------------------------------------------------ */
/* Binary                                                              */
/* ------------------------------------------------------------------ */
nd_status nd__ew_binary(const char *func, bool named, nd_array **out, nd_binary_op op, const nd_array *a,
                        const nd_array *b, nd_dtype in)
{
    nd_dtype loop = ND_BOOL, res = ND_BOOL;
    nd_status st = resolve_memo(&binary_memo[op][in], func, nd__binary_name(op), named, binary_kinds[op],
                                binary_rules[op], in, &loop, &res);
    if (st) return st;
    if ((st = nd__ew_same_device(func, a, "a", b, "b"))) return st;
    nd_array *o = *out;
    const nd_backend *fast = nd__backend(a->device); /* the direct path, where the backend has one */
    if (a->dtype == loop && b->dtype == loop && fast && fast->binary_flat &&
        (op != ND_BINARY_POWER || nd__is_float(loop)) && (o == NULL || (o->dtype == res && direct_out(o))) &&
        direct_operand(a, o ? o : a) && direct_operand(b, o ? o : a) &&
        (o == NULL || (direct_no_overlap(o, a) && direct_no_overlap(o, b)))) {
        if (o == NULL && (st = nd__alloc(&o, res, a->ndim, a->shape, a->device))) return nd__err_prefix(st, func);
        fast->binary_flat(op, loop, nd__ptr(o), nd__ptr(a), nd__ptr(b), a->size);
        *out = o;
        return ND_OK;
    }
    const nd_backend *be = NULL;
    if ((st = nd__ew_backend(func, a->device, &be))) return st;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    if ((st = nd__broadcast_shapes(func, a->ndim, a->shape, b->ndim, b->shape, &ndim, shape))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, func, out, res, ndim, shape, a->device))) return st;
    nd__out_keep_order(&t, 2, (const nd_array *const[]){a, b});
    nd_array *ca = NULL, *cb = NULL;
    const nd_array *v[2];
    if ((st = nd__ew_input(func, a, loop, ndim, shape, &ca, &v[0]))) goto done;
    if ((st = nd__ew_input(func, b, loop, ndim, shape, &cb, &v[1]))) goto done;
    if ((st = nd__out_target(&t, res, ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, 2, v))) goto done;
    st = be->binary(op, t.dst, v[0], v[1]);
    if (st == ND_ERR_INVALID && op == ND_BINARY_POWER)
        nd__err(ND_ERR_INVALID, func, "Integers to negative integer powers are not allowed.");
done:
    nd_release(cb);
    nd_release(ca);
    return nd__out_end(&t, st);
}

/* ldexp(x, e): the loop is x's float dtype (the FLOAT rule on x alone)
 * and the integer exponent e is cast to it (exact wherever the result is
 * not 0 or inf, see nd_op_ldexp_*), except bfloat16, whose 8-bit
 * significand does not hold every relevant exponent: it computes in
 * float32 (exact: same exponent range) and rounds once. */
static nd_status ldexp_check(const char *func, bool named, nd_dtype a, nd_dtype b)
{
    if (!nd__dtype_valid(a) || !nd__dtype_valid(b) || nd__is_float(b) || nd__is_complex(b) || b == ND_UINT64) {
        if (named)
            return nd__err(ND_ERR_DTYPE, func, "no loop for dtype %s (exponent %s: it must be bool or an integer that fits int64)",
                           nd_dtype_name(a), nd_dtype_name(b));
        return nd__err(ND_ERR_DTYPE, func, "op 'ldexp' has no loop for dtype %s (exponent %s: it must be bool or an integer that fits int64)",
                       nd_dtype_name(a), nd_dtype_name(b));
    }
    return ND_OK;
}

static nd_status ldexp_impl(const char *func, bool named, nd_array **out, const nd_array *a, const nd_array *b)
{
    nd_status cst = ldexp_check(func, named, a->dtype, b->dtype);
    if (cst) return cst;
    nd_dtype in = nd__float_for(a->dtype);
    if (in != ND_BFLOAT16) return nd__ew_binary(func, named, out, ND_BINARY_LDEXP, a, b, in);
    nd_array *t = NULL;
    nd_status st = nd__ew_binary(func, named, &t, ND_BINARY_LDEXP, a, b, ND_FLOAT32);
    if (st) return st;
    nd_out o;
    if ((st = nd__out_begin(&o, func, out, ND_BFLOAT16, t->ndim, t->shape, t->device))) goto done;
    nd__out_keep_order(&o, 1, (const nd_array *const[]){t});
    if ((st = nd__out_target(&o, ND_BFLOAT16, ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, 1, (const nd_array *const[]){t}))) goto fin;
    st = nd__copy_into(o.dst, t);
fin:
    st = nd__out_end(&o, st);
done:
    nd_release(t);
    return st;
}

/* The promoted input dtype of op on arrays of dtypes a and b (op is not
 * ldexp, which has its own rule). */
static nd_status binary_in(const char *func, nd_binary_op op, nd_dtype a, nd_dtype b, nd_dtype *in)
{
    nd_status st = nd_result_type(in, a, b);
    if (st) return nd__err_prefix(st, func);
    /* float ops on two integer inputs: NumPy's loop is the smallest float
     * both convert to safely (int8 with uint8 -> float16), not the float
     * of their promoted integer (int16 -> float32) */
    if (a != b && binary_rules[op] == ND_EW_RULE_FLOAT && !nd__is_float(a) && !nd__is_float(b) &&
        (st = nd_result_type(in, nd__float_for(a), nd__float_for(b))))
        return nd__err_prefix(st, func);
    return ND_OK;
}

static nd_status binary_impl(const char *func, bool named, nd_array **out, nd_binary_op op, const nd_array *a,
                             const nd_array *b)
{
    ND_CHECK_PTR(func, out, "out");
    if ((unsigned)op >= (unsigned)ND_NUM_BINARY_OPS)
        return nd__err(ND_ERR_INVALID, func, "invalid binary op %d", (int)op);
    ND_CHECK_PTR(func, a, "a");
    ND_CHECK_PTR(func, b, "b");
    if (ND_UNLIKELY(op == ND_BINARY_LDEXP)) return ldexp_impl(func, named, out, a, b);
    nd_dtype in = a->dtype;
    nd_array *o = *out;
    const nd_backend *fast = nd__backend(a->device);
    if (ND_LIKELY(b->dtype == in && nd__dtype_valid(in) && fast && fast->binary_flat && o != NULL)) {
        /* the direct path, checked here before the general machinery */
        unsigned m = atomic_load_explicit(&binary_memo[op][in], memory_order_relaxed);
        if (m != 0 && memo_loop(m) == in && o->dtype == memo_res(m) &&
            (op != ND_BINARY_POWER || nd__is_float(in)) && direct_out(o) && direct_operand(a, o) &&
            direct_operand(b, o) && direct_no_overlap(o, a) && direct_no_overlap(o, b)) {
            fast->binary_flat(op, in, nd__ptr(o), nd__ptr(a), nd__ptr(b), o->size);
            return ND_OK;
        }
    }
    if (a->dtype != b->dtype || !nd__dtype_valid(in)) {
        nd_status st = binary_in(func, op, a->dtype, b->dtype, &in);
        if (st) return st;
    }
    return nd__ew_binary(func, named, out, op, a, b, in);
}

nd_status nd__ew_unary_op(const char *func, nd_array **out, nd_unary_op op, const nd_array *a)
{
    return unary_impl(func, false, out, op, a);
}

nd_status nd__ew_binary_op(const char *func, nd_array **out, nd_binary_op op, const nd_array *a, const nd_array *b)
{
    return binary_impl(func, false, out, op, a, b);
}

/* The profiled copy of a binary op (ND_PRH_HOT in src/core/prof_hooks.h). */
static ND_PRH_COLD nd_status binary_prof(const char *func, bool named, nd_array **out, nd_binary_op op,
                                         const nd_array *a, const nd_array *b)
{
    ND_PROF_OP(prof_bname(op), out, a, b);
    return binary_impl(func, named, out, op, a, b);
}

nd_status nd_binary(nd_array **out, nd_binary_op op, const nd_array *a, const nd_array *b)
{
    ND_PRH_HOT(binary_prof("nd_binary", false, out, op, a, b), binary_impl("nd_binary", false, out, op, a, b));
}

/* ------------------------------------------------------------------ */
/* Weak (Python) scalars, NEP 50                                       */
/* ------------------------------------------------------------------ */
/* Ops whose result NumPy 2 computes exactly for any Python integer (the
 * comparisons and logical ops): an out-of-range scalar widens the loop. */
static bool exact_for_any_int(nd_binary_op op)
{
    return op == ND_BINARY_EQUAL || op == ND_BINARY_NOT_EQUAL || op == ND_BINARY_LESS || op == ND_BINARY_LESS_EQUAL ||
           op == ND_BINARY_GREATER || op == ND_BINARY_GREATER_EQUAL || op == ND_BINARY_LOGICAL_AND ||
           op == ND_BINARY_LOGICAL_OR || op == ND_BINARY_LOGICAL_XOR;
}

nd_status nd__ew_check_scalar(const char *func, nd_scalar s, const char *name)
{
    if (s.kind == ND_SCALAR_BOOL || s.kind == ND_SCALAR_INT || s.kind == ND_SCALAR_FLOAT || s.kind == ND_SCALAR_COMPLEX)
        return ND_OK;
    if (s.kind == ND_SCALAR_NONE) return nd__err(ND_ERR_INVALID, func, "scalar '%s' has no value (ND_SCALAR_NONE)", name);
    return nd__err(ND_ERR_INVALID, func, "scalar '%s' has an invalid kind %d", name, (int)s.kind);
}

nd_status nd__ew_out_of_bounds(const char *func, nd_scalar s, nd_dtype t)
{
    return nd__err(ND_ERR_INVALID, func, "Python integer %lld out of bounds for %s", (long long)s.v.i, nd_dtype_name(t));
}

nd_status nd__ew_scalar_types(const char *func, nd_binary_op op, nd_dtype a, nd_scalar *s, bool scalar_left,
                              nd_dtype *sdt, nd_dtype *in, nd_dtype *loop, nd_dtype *res, bool *strong)
{
    *strong = false;
    if (op == ND_BINARY_LDEXP) {
        if (s->kind == ND_SCALAR_COMPLEX) return nd__err(ND_ERR_DTYPE, func, "no loop for ldexp with a complex scalar");
        /* an exponent must be a Python int (or bool); a scalar mantissa is
         * float64 when it is a float and float16 when it is an int or bool
         * (NumPy 2.4 picks the 'ei->e' loop for np.ldexp(3, e)) */
        if (!scalar_left && s->kind == ND_SCALAR_FLOAT)
            return nd__err(ND_ERR_DTYPE, func, "op 'ldexp' has no loop for a float exponent (it must be an integer)");
        *sdt = scalar_left ? (s->kind == ND_SCALAR_FLOAT ? ND_FLOAT64 : ND_FLOAT16) : ND_INT64;
        *strong = true;
        return ND_OK;
    }
    /* logical ops read only the scalar's truth value: take it before any
     * cast (1e-40 is true, though it becomes 0 in float16). A weak bool
     * never changes the array's dtype, and the result is bool either way. */
    if (op == ND_BINARY_LOGICAL_AND || op == ND_BINARY_LOGICAL_OR || op == ND_BINARY_LOGICAL_XOR)
        *s = nd_scalar_bool(s->kind == ND_SCALAR_COMPLEX ? (s->v.c[0] != 0.0 || s->v.c[1] != 0.0)
                            : s->kind == ND_SCALAR_FLOAT ? s->v.f != 0.0
                            : s->kind == ND_SCALAR_INT   ? s->v.i != 0
                                                         : s->v.b);
    *in = nd__promote_weak(a, s->kind);
    /* the scalar must fit the dtype the loop reads it as (int8 / 300 is
     * fine: true division loops in float64) */
    nd_status st = resolve(func, nd__binary_name(op), false, binary_kinds[op], binary_rules[op], *in, loop, res);
    if (st) return st;
    if (!nd__scalar_fits(*s, *loop)) {
        if (!exact_for_any_int(op)) return nd__ew_out_of_bounds(func, *s, *loop);
        *in = *loop = *in == ND_UINT64 ? ND_FLOAT64 : ND_INT64; /* these BOOL-rule ops loop in `in` */
        if ((st = resolve(func, nd__binary_name(op), false, binary_kinds[op], binary_rules[op], *in, loop, res)))
            return st;
    }
    /* the scalar goes straight to the loop dtype (uint8 array, -1.0 scalar
     * for arctan2: float16 -1, not a wrapped 255) */
    *sdt = *loop;
    return ND_OK;
}

nd_status nd__ew_scalar(const char *func, nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s,
                        bool scalar_left)
{
    ND_CHECK_PTR(func, out, "out");
    if ((unsigned)op >= (unsigned)ND_NUM_BINARY_OPS)
        return nd__err(ND_ERR_INVALID, func, "invalid binary op %d", (int)op);
    ND_CHECK_PTR(func, a, "a");
    nd_status st = nd__ew_check_scalar(func, s, "s");
    if (st) return st;
    nd_dtype sdt = a->dtype, in = a->dtype, loop = a->dtype, res = a->dtype;
    bool strong = false;
    if ((st = nd__ew_scalar_types(func, op, a->dtype, &s, scalar_left, &sdt, &in, &loop, &res, &strong))) return st;
    nd_array *sa;
    if ((st = nd__scalar_array(&sa, s, sdt, a->device))) return nd__err_prefix(st, func);
    if (strong) /* ldexp: the scalar takes part as a 0-d array */
        st = scalar_left ? ldexp_impl(func, false, out, sa, a) : ldexp_impl(func, false, out, a, sa);
    else
        st = scalar_left ? nd__ew_binary(func, false, out, op, sa, a, in) : nd__ew_binary(func, false, out, op, a, sa, in);
    nd_release(sa);
    return st;
}

nd_status nd__ew_unary_types(const char *func, nd_unary_op op, nd_dtype a, nd_dtype *loop, nd_dtype *res)
{
    if ((unsigned)op >= (unsigned)ND_NUM_UNARY_OPS || !nd__dtype_valid(a))
        return nd__err(ND_ERR_INVALID, func, "invalid unary op %d or dtype %d", (int)op, (int)a);
    return resolve_memo(&unary_memo[op][a], func, nd__unary_name(op), false, unary_kinds[op], unary_rules[op], a, loop,
                        res);
}

nd_status nd__ew_binary_types(const char *func, nd_binary_op op, nd_dtype a, nd_dtype b, nd_dtype *loop,
                              nd_dtype *opres, nd_dtype *res)
{
    nd_status st;
    if ((unsigned)op >= (unsigned)ND_NUM_BINARY_OPS)
        return nd__err(ND_ERR_INVALID, func, "invalid binary op %d", (int)op);
    if (op == ND_BINARY_LDEXP) {
        if ((st = ldexp_check(func, false, a, b))) return st;
        nd_dtype in = nd__float_for(a);
        bool bf = in == ND_BFLOAT16; /* computed in float32, rounded once (ldexp_impl) */
        if ((st = resolve_memo(&binary_memo[op][bf ? ND_FLOAT32 : in], func, "ldexp", false, binary_kinds[op],
                               binary_rules[op], bf ? ND_FLOAT32 : in, loop, opres)))
            return st;
        *res = bf ? ND_BFLOAT16 : *opres;
        return ND_OK;
    }
    nd_dtype in = a;
    if (a != b || !nd__dtype_valid(a)) {
        if ((st = binary_in(func, op, a, b, &in))) return st;
    }
    if ((st = resolve_memo(&binary_memo[op][in], func, nd__binary_name(op), false, binary_kinds[op], binary_rules[op],
                           in, loop, opres)))
        return st;
    *res = *opres;
    return ND_OK;
}

nd_status nd_binary_scalar(nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s)
{
    ND_PROF_OP(prof_bname(op), out, a);
    return nd__ew_scalar("nd_binary_scalar", out, op, a, s, false);
}

nd_status nd_scalar_binary(nd_array **out, nd_binary_op op, nd_scalar s, const nd_array *a)
{
    ND_PROF_OP(prof_bname(op), out, a);
    return nd__ew_scalar("nd_scalar_binary", out, op, a, s, true);
}

/* ------------------------------------------------------------------ */
/* Named wrappers: one per op of the table                             */
/* ------------------------------------------------------------------ */
#define ND_EW_UWRAP(E, n, k, r)                                       \
    nd_status nd_##n(nd_array **out, const nd_array *a)               \
    {                                                                 \
        ND_PRH_HOT(unary_prof("nd_" #n, true, out, ND_UNARY_##E, a),          \
                   unary_impl("nd_" #n, true, out, ND_UNARY_##E, a));         \
    }
#define ND_EW_BWRAP(E, n, k, r)                                                 \
    nd_status nd_##n(nd_array **out, const nd_array *a, const nd_array *b)      \
    {                                                                           \
        ND_PRH_HOT(binary_prof("nd_" #n, true, out, ND_BINARY_##E, a, b),             \
                   binary_impl("nd_" #n, true, out, ND_BINARY_##E, a, b));            \
    }
ND_UNARY_OPS(ND_EW_UWRAP)
ND_BINARY_OPS(ND_EW_BWRAP)

/* SciPy's name of sigmoid (the same op; errors name nd_expit) */
nd_status nd_expit(nd_array **out, const nd_array *a)
{
    ND_PRH_HOT(unary_prof("nd_expit", true, out, ND_UNARY_SIGMOID, a),
               unary_impl("nd_expit", true, out, ND_UNARY_SIGMOID, a));
}

int nd__ew_resolved_loop(bool binary, int op, nd_dtype in)
{
    if (op < 0 || op >= (binary ? ND_NUM_BINARY_OPS : ND_NUM_UNARY_OPS) || !nd__dtype_valid(in)) return -1;
    unsigned m = atomic_load_explicit(binary ? &binary_memo[op][in] : &unary_memo[op][in], memory_order_relaxed);
    return m ? (int)memo_loop(m) : -1;
}
