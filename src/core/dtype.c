/* dtypes: names, NEP 50 promotion, same_kind casting, weak scalars. */
#include <math.h>
#include <string.h>

#include "shared/convert.h"
#include "core/internal.h"

/* dtype enum values by their convert.h suffix: ND_DT_f32 == ND_FLOAT32 */
#define DT_SFX_ENUM(A, E, sfx, ...) ND_DT_##sfx = E,
enum { ND_DTYPE_TABLE(DT_SFX_ENUM, _) };

/* The table is the enum, row for row; sizes are the storage types'. */
#define DT_CHECK(A, E, sfx, name, size, ...)                                                      \
    _Static_assert(E == (int)__COUNTER__ - ND__DT_COUNTER0 - 1, #E ": dtype table row out of enum order"); \
    _Static_assert(sizeof(nd_##sfx##_t) == (size), #E ": table size is not the storage type's size");
enum { ND__DT_COUNTER0 = __COUNTER__ };
ND_DTYPE_TABLE(DT_CHECK, _)
#define DT_ONE(A, E, ...) +1
_Static_assert(0 ND_DTYPE_TABLE(DT_ONE, _) == ND_NUM_DTYPES, "the dtype table has one row per nd_dtype");

#define DT_NAME(A, E, sfx, name, ...) name,
static const char *const dtype_names[ND_NUM_DTYPES] = {ND_DTYPE_TABLE(DT_NAME, _)};

const char *nd_dtype_name(nd_dtype t) { return nd__dtype_valid(t) ? dtype_names[t] : "invalid"; }
size_t nd_dtype_size(nd_dtype t) { return nd__itemsize(t); }

static int int_bits(nd_dtype t) { return (int)nd__itemsize(t) * 8; }

static nd_dtype signed_of_bits(int bits)
{
    switch (bits) {
    case 8: return ND_INT8;
    case 16: return ND_INT16;
    case 32: return ND_INT32;
    default: return ND_INT64;
    }
}

/* Rank of floats for "max": float16 and bfloat16 are incomparable. */
static nd_dtype float_max(nd_dtype a, nd_dtype b)
{
    if (a == b) return a;
    if ((a == ND_FLOAT16 && b == ND_BFLOAT16) || (a == ND_BFLOAT16 && b == ND_FLOAT16)) return ND_FLOAT32;
    return nd__itemsize(a) >= nd__itemsize(b) ? a : b;
}

nd_dtype nd__float_for(nd_dtype t)
{
    switch (nd__kind(t)) {
    case ND_KIND_FLOAT:
    case ND_KIND_COMPLEX: return t;
    case ND_KIND_BOOL: return ND_FLOAT16;
    default:
        switch (nd__itemsize(t)) {
        case 1: return ND_FLOAT16;
        case 2: return ND_FLOAT32;
        default: return ND_FLOAT64;
        }
    }
}

/* Promotion table computed from the rules above; one source of truth. */
static nd_dtype promote(nd_dtype a, nd_dtype b)
{
    nd_kind ka = nd__kind(a), kb = nd__kind(b);
    if (a == b) return a;
    if (ka == ND_KIND_BOOL) return b;
    if (kb == ND_KIND_BOOL) return a;
    if (ka == ND_KIND_COMPLEX || kb == ND_KIND_COMPLEX) {
        /* the complex dtype whose parts hold both sides' values: complex64
         * with float64 or a 32/64-bit integer is complex128 */
        nd_dtype ra = ka == ND_KIND_COMPLEX ? nd__real_of(a) : promote(a, ND_FLOAT16);
        nd_dtype rb = kb == ND_KIND_COMPLEX ? nd__real_of(b) : promote(b, ND_FLOAT16);
        return nd__complex_of(float_max(ra, rb));
    }
    if (ka == ND_KIND_FLOAT && kb == ND_KIND_FLOAT) return float_max(a, b);
    if (ka == ND_KIND_FLOAT || kb == ND_KIND_FLOAT) {
        nd_dtype f = ka == ND_KIND_FLOAT ? a : b, i = ka == ND_KIND_FLOAT ? b : a;
        /* bfloat16 holds 8-bit integers exactly */
        if (f == ND_BFLOAT16 && nd__itemsize(i) == 1) return ND_BFLOAT16;
        return float_max(f, nd__float_for(i));
    }
    if (ka == kb) return nd__itemsize(a) >= nd__itemsize(b) ? a : b;
    /* signed with unsigned */
    nd_dtype s = ka == ND_KIND_INT ? a : b, u = ka == ND_KIND_INT ? b : a;
    if (int_bits(s) > int_bits(u)) return s;
    if (int_bits(u) == 64) return ND_FLOAT64;
    return signed_of_bits(int_bits(u) * 2);
}

nd_status nd_result_type(nd_dtype *out, nd_dtype a, nd_dtype b)
{
    ND_CHECK_PTR("nd_result_type", out, "out");
    if (!nd__dtype_valid(a)) return nd__err(ND_ERR_INVALID, "nd_result_type", "invalid dtype value %d for 'a'", (int)a);
    if (!nd__dtype_valid(b)) return nd__err(ND_ERR_INVALID, "nd_result_type", "invalid dtype value %d for 'b'", (int)b);
    *out = promote(a, b);
    return ND_OK;
}

bool nd_can_cast_same_kind(nd_dtype from, nd_dtype to)
{
    if (!nd__dtype_valid(from) || !nd__dtype_valid(to)) return false;
    nd_kind kf = nd__kind(from), kt = nd__kind(to);
    if (from == to || kf == ND_KIND_BOOL) return true;
    switch (kt) {
    case ND_KIND_BOOL: return false;
    case ND_KIND_UINT: return kf == ND_KIND_UINT;
    case ND_KIND_INT: return kf == ND_KIND_INT || kf == ND_KIND_UINT;
    case ND_KIND_FLOAT: return kf != ND_KIND_COMPLEX;
    case ND_KIND_COMPLEX: return true;
    }
    return false;
}

nd_dtype nd__promote_weak(nd_dtype t, nd_scalar_kind k)
{
    switch (k) {
    case ND_SCALAR_INT:
        return nd__kind(t) == ND_KIND_BOOL ? ND_INT64 : t;
    case ND_SCALAR_FLOAT:
        return nd__kind(t) == ND_KIND_FLOAT || nd__kind(t) == ND_KIND_COMPLEX ? t : ND_FLOAT64;
    case ND_SCALAR_COMPLEX:
        /* a float array keeps its precision (float16/bfloat16/float32 ->
         * complex64), integers and bool take Python's complex128 */
        if (nd__kind(t) == ND_KIND_COMPLEX) return t;
        return nd__kind(t) == ND_KIND_FLOAT ? nd__complex_of(t) : ND_COMPLEX128;
    default:
        return t;
    }
}

bool nd__scalar_fits(nd_scalar s, nd_dtype t)
{
    if (s.kind != ND_SCALAR_INT || !nd__is_integer(t)) return true;
    int64_t v = s.v.i;
#define DT_RANGE(A, E, sfx, name, size, kind, npy, dl, lo, hi, ...) \
    case E: return v >= (int64_t)(lo) && (v < 0 || (uint64_t)v <= (uint64_t)(hi));
    switch (t) {
        ND_DTYPE_TABLE(DT_RANGE, _)
    default: return true;
    }
#undef DT_RANGE
}

void nd__scalar_store(void *dst, nd_dtype t, nd_scalar s)
{
    /* The same element conversions as array casts (src/shared/convert.h): a bool
     * scalar converts like a bool element, an int like int64, a float like
     * float64, a complex like complex128 (into a real dtype: its real part). */
#define STORE_CASE(D)                                                                         \
    case ND_DT_##D: {                                                                         \
        nd_##D##_t r = s.kind == ND_SCALAR_COMPLEX ? nd_st_##D##_from_Z(nd_mk_c128(s.v.c[0], s.v.c[1])) \
                       : s.kind == ND_SCALAR_FLOAT ? nd_st_##D##_from_D(s.v.f)                \
                       : s.kind == ND_SCALAR_INT   ? nd_st_##D##_from_I(s.v.i)                \
                                                   : nd_st_##D##_from_U(s.kind == ND_SCALAR_BOOL && s.v.b); \
        memcpy(dst, &r, sizeof r);                                                            \
        break;                                                                                \
    }
    switch (t) {
        ND_DTYPE_SUFFIXES(STORE_CASE)
    default:
        break;
    }
#undef STORE_CASE
}

double nd__load_f64(const void *src, nd_dtype t)
{
    /* complex: the real part (as a cast to float64 takes it) */
#define LOAD_CASE(D)                                \
    case ND_DT_##D: {                               \
        nd_##D##_t v;                               \
        memcpy(&v, src, sizeof v);                  \
        return nd_cvt_##D##_f64(v);                 \
    }
    switch (t) {
        ND_DTYPE_SUFFIXES(LOAD_CASE)
    default: return NAN;
    }
#undef LOAD_CASE
}

double nd__dtype_max(nd_dtype t)
{
#define DT_FMAX(A, E, sfx, name, size, kind, npy, dl, lo, hi, fmax, ...) \
    case E: return (fmax);
    switch (t) {
        ND_DTYPE_TABLE(DT_FMAX, _)
    default: return 0.0;
    }
#undef DT_FMAX
}

/* The refusal of a complex operand where an op has no complex meaning
 * (a dtype rule; error.c only formats it, so it calls nothing here). */
nd_status nd__no_complex(const char *func, const nd_array *a, const char *name)
{
    if (!a || !nd__is_complex(a->dtype)) return ND_OK;
    return nd__err(ND_ERR_DTYPE, func, "'%s' is %s, and %s is not defined for complex dtypes here", name,
                   nd_dtype_name(a->dtype), func);
}
