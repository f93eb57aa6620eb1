/* The dtype table: every fact about a dtype that the library needs, in
 * one place, for the C compiler and nvcc alike (plain macros, no code).
 *
 * ND_DTYPE_TABLE(X, A) expands X(A, ENUM, sfx, name, size, kind, npy, dl, lo, hi, fmax, comp)
 * per dtype (A is passed through, for adaptor macros; `_` when unused):
 *   ENUM  the public nd_dtype value (include/ndgpu/core.h; rows are in enum
 *         order, which static asserts in src/core/dtype.c check)
 *   sfx   the type suffix of src/shared/convert.h (nd_<sfx>_t, nd_cvt_<s>_<d>)
 *   name  NumPy's name (nd_dtype_name)
 *   size  bytes per element (checked against sizeof(nd_<sfx>_t))
 *   kind  nd_kind (bool, signed int, unsigned int, float, complex)
 *   npy   the .npy 'descr' type letter ('V' for ml_dtypes' bfloat16)
 *   dl    the DLPack type code (a DLDataTypeCode name; only expanded
 *         where dlpack.h is included)
 *   lo,hi integer range (weak Python ints must fit: nd__scalar_fits);
 *         0, 0 for floats and bool (no range check)
 *   fmax  largest finite value of a float dtype, of each part of a
 *         complex one (0 otherwise)
 *   comp  the dtype it computes in (nd__compute_dtype): itself, or for a
 *         storage-only type (float16, bfloat16) the type its values are
 *         widened to by the loops, reductions, matmuls and transforms that
 *         have no native form for it (float32)
 *
 * Adding a dtype: a value in the public enum (include/ndgpu/core.h), a row here,
 * a row in ND_DTYPE_PAIRS below, its storage type, loads/stores in
 * src/shared/convert.h and its promotion rule in src/core/dtype.c (promote(): the
 * kinds and sizes decide everything else); the op table's kind letters
 * and the loop generators then pick it up.
 */
#ifndef ND_DTYPE_TABLE_H
#define ND_DTYPE_TABLE_H

#define ND_DTYPE_TABLE(X, A)                                                                               \
    X(A, ND_BOOL, b1, "bool", 1, ND_KIND_BOOL, 'b', kDLBool, 0, 0, 0, ND_BOOL)                                 \
    X(A, ND_INT8, i8, "int8", 1, ND_KIND_INT, 'i', kDLInt, INT8_MIN, INT8_MAX, 0, ND_INT8)                     \
    X(A, ND_INT16, i16, "int16", 2, ND_KIND_INT, 'i', kDLInt, INT16_MIN, INT16_MAX, 0, ND_INT16)               \
    X(A, ND_INT32, i32, "int32", 4, ND_KIND_INT, 'i', kDLInt, INT32_MIN, INT32_MAX, 0, ND_INT32)               \
    X(A, ND_INT64, i64, "int64", 8, ND_KIND_INT, 'i', kDLInt, INT64_MIN, INT64_MAX, 0, ND_INT64)               \
    X(A, ND_UINT8, u8, "uint8", 1, ND_KIND_UINT, 'u', kDLUInt, 0, UINT8_MAX, 0, ND_UINT8)                      \
    X(A, ND_UINT16, u16, "uint16", 2, ND_KIND_UINT, 'u', kDLUInt, 0, UINT16_MAX, 0, ND_UINT16)                 \
    X(A, ND_UINT32, u32, "uint32", 4, ND_KIND_UINT, 'u', kDLUInt, 0, UINT32_MAX, 0, ND_UINT32)                 \
    X(A, ND_UINT64, u64, "uint64", 8, ND_KIND_UINT, 'u', kDLUInt, 0, UINT64_MAX, 0, ND_UINT64)                 \
    X(A, ND_FLOAT16, f16, "float16", 2, ND_KIND_FLOAT, 'f', kDLFloat, 0, 0, 65504.0, ND_FLOAT32)               \
    X(A, ND_BFLOAT16, bf16, "bfloat16", 2, ND_KIND_FLOAT, 'V', kDLBfloat, 0, 0, 3.3895313892515355e38, ND_FLOAT32) \
    X(A, ND_FLOAT32, f32, "float32", 4, ND_KIND_FLOAT, 'f', kDLFloat, 0, 0, 3.4028234663852886e38, ND_FLOAT32) \
    X(A, ND_FLOAT64, f64, "float64", 8, ND_KIND_FLOAT, 'f', kDLFloat, 0, 0, 1.7976931348623157e308, ND_FLOAT64) \
    X(A, ND_COMPLEX64, c64, "complex64", 8, ND_KIND_COMPLEX, 'c', kDLComplex, 0, 0, 3.4028234663852886e38, ND_COMPLEX64) \
    X(A, ND_COMPLEX128, c128, "complex128", 16, ND_KIND_COMPLEX, 'c', kDLComplex, 0, 0, 1.7976931348623157e308, ND_COMPLEX128)

/* X(sfx) over the dtypes in enum order, from the table. X may use
 * ND_DTYPE_PAIRS (not ND_DTYPE_TABLE: a macro cannot expand inside its own
 * expansion). */
#define ND__DT_SFX(F, E, s, ...) F(s)
#define ND_DTYPE_SUFFIXES(X) ND_DTYPE_TABLE(ND__DT_SFX, X)

/* M(S, sfx) over the dtypes in enum order: the inner list of a dtype x
 * dtype table (the casts of convert.h, the cast loops and kernels). The
 * one list written out by hand, for the reason above; tests/test_dtype.c
 * checks it against the table. */
#define ND_DTYPE_PAIRS(M, S) \
    M(S, b1) M(S, i8) M(S, i16) M(S, i32) M(S, i64) M(S, u8) M(S, u16) M(S, u32) M(S, u64) M(S, f16) M(S, bf16) M(S, f32) M(S, f64) \
    M(S, c64) M(S, c128)

#endif
