/* Helpers of the elementwise suite (tests/test_elementwise*.c): host-side
 * values of every dtype, the double-precision reference of every op, and
 * the TCase constructors that tests/test_elementwise.c assembles. */
#ifndef ND_EW_HARNESS_H
#define ND_EW_HARNESS_H

#include "shared/half.h"
#include "core/internal.h"
#include "test_util.h"

/* One element's value: floats in f, signed ints and bool in i, unsigned in u. */
typedef union {
    double f;
    int64_t i;
    uint64_t u;
} ew_val;

bool ew_is_signed(nd_dtype t);
int ew_bits(nd_dtype t);
/* The bits reduced to integer dtype t (two's complement wrap). */
ew_val ew_wrap(nd_dtype t, uint64_t bits);
/* d rounded to float dtype t's precision (nearest even); d for float64. */
double ew_round(nd_dtype t, double d);
ew_val ew_load(const void *p, nd_dtype t);
/* Store v (a value of dtype t) into p as dtype t. */
void ew_store(void *p, nd_dtype t, ew_val v);
/* Value conversion from dtype `from` to `to` (widening casts, int -> float,
 * anything -> bool). */
ew_val ew_convert(ew_val v, nd_dtype from, nd_dtype to);
double ew_as_double(ew_val v, nd_dtype t);
/* Equal within the tolerance of result dtype res (values of dtype t);
 * NaN matches NaN, infinities must match exactly. */
bool ew_close(ew_val got, ew_val want, nd_dtype t, nd_dtype res);
/* "1.5", "-3", "nan" */
void ew_fmt(char *buf, size_t cap, ew_val v, nd_dtype t);

/* The dtypes NumPy would loop in: false when the op has no loop for the
 * promoted input dtype `in`. */
bool ew_unary_types(nd_unary_op op, nd_dtype in, nd_dtype *loop, nd_dtype *res);
bool ew_binary_types(nd_binary_op op, nd_dtype in, nd_dtype *loop, nd_dtype *res);
/* Whether the op's kinds string admits dtype t. */
bool ew_unary_admits(nd_unary_op op, nd_dtype t);
bool ew_binary_admits(nd_binary_op op, nd_dtype t);

/* Double-precision / exact integer references, x and the result in the
 * loop dtype `loop` (results of BOOL ops as i = 0/1). false when the op
 * has no reference (reported as a failure by the harness). */
bool ew_ref_unary(nd_unary_op op, nd_dtype loop, ew_val x, ew_val *r);
bool ew_ref_binary(nd_binary_op op, nd_dtype loop, ew_val a, ew_val b, ew_val *r);

TCase *ew_tcase_harness(void);
TCase *ew_tcase_exact(void);
TCase *ew_tcase_select(void);
TCase *ew_tcase_errors(void);
TCase *ew_tcase_ops13(void);
#endif
