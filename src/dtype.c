/* dtypes: names, NEP 50 promotion, same_kind casting, weak scalars. */
#include <math.h>
#include <string.h>

#include "convert.h"
#include "internal.h"

/* dtype enum values by their convert.h suffix */
enum {
    ND_DT_b1 = ND_BOOL, ND_DT_i8 = ND_INT8, ND_DT_i16 = ND_INT16, ND_DT_i32 = ND_INT32, ND_DT_i64 = ND_INT64,
    ND_DT_u8 = ND_UINT8, ND_DT_u16 = ND_UINT16, ND_DT_u32 = ND_UINT32, ND_DT_u64 = ND_UINT64,
    ND_DT_f16 = ND_FLOAT16, ND_DT_bf16 = ND_BFLOAT16, ND_DT_f32 = ND_FLOAT32, ND_DT_f64 = ND_FLOAT64
};

static const char *const dtype_names[ND_NUM_DTYPES] = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64"};

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
    case ND_KIND_FLOAT: return t;
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
    case ND_KIND_FLOAT: return true;
    }
    return false;
}

nd_dtype nd__promote_weak(nd_dtype t, nd_scalar_kind k)
{
    switch (k) {
    case ND_SCALAR_INT:
        return nd__kind(t) == ND_KIND_BOOL ? ND_INT64 : t;
    case ND_SCALAR_FLOAT:
        return nd__kind(t) == ND_KIND_FLOAT ? t : ND_FLOAT64;
    default:
        return t;
    }
}

bool nd__scalar_fits(nd_scalar s, nd_dtype t)
{
    if (s.kind != ND_SCALAR_INT) return true;
    int64_t v = s.v.i;
    switch (t) {
    case ND_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case ND_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case ND_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case ND_UINT8: return v >= 0 && v <= UINT8_MAX;
    case ND_UINT16: return v >= 0 && v <= UINT16_MAX;
    case ND_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case ND_UINT64: return v >= 0;
    default: return true;
    }
}

void nd__scalar_store(void *dst, nd_dtype t, nd_scalar s)
{
    /* The same element conversions as array casts (src/convert.h): a bool
     * scalar converts like a bool element, an int like int64, a float like
     * float64. */
#define STORE_CASE(D)                                                             \
    case ND_DT_##D: {                                                             \
        nd_##D##_t r = s.kind == ND_SCALAR_FLOAT ? nd_st_##D##_from_D(s.v.f)      \
                       : s.kind == ND_SCALAR_INT ? nd_st_##D##_from_I(s.v.i)      \
                                                 : nd_st_##D##_from_U(s.kind == ND_SCALAR_BOOL && s.v.b); \
        memcpy(dst, &r, sizeof r);                                                \
        break;                                                                    \
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
    switch (t) {
    case ND_BOOL: return *(const uint8_t *)src ? 1.0 : 0.0;
    case ND_INT8: return *(const int8_t *)src;
    case ND_INT16: { int16_t v; memcpy(&v, src, 2); return v; }
    case ND_INT32: { int32_t v; memcpy(&v, src, 4); return v; }
    case ND_INT64: { int64_t v; memcpy(&v, src, 8); return (double)v; }
    case ND_UINT8: return *(const uint8_t *)src;
    case ND_UINT16: { uint16_t v; memcpy(&v, src, 2); return v; }
    case ND_UINT32: { uint32_t v; memcpy(&v, src, 4); return v; }
    case ND_UINT64: { uint64_t v; memcpy(&v, src, 8); return (double)v; }
    case ND_FLOAT16: { uint16_t v; memcpy(&v, src, 2); return nd_half_to_float(v); }
    case ND_BFLOAT16: { uint16_t v; memcpy(&v, src, 2); return nd_bf16_to_float(v); }
    case ND_FLOAT32: { float v; memcpy(&v, src, 4); return v; }
    case ND_FLOAT64: { double v; memcpy(&v, src, 8); return v; }
    default: return NAN;
    }
}
