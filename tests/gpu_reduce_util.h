/* Helpers of the CUDA reduction suites (tests/test_gpu_reduce*.c): inputs
 * in every layout built identically on any device, and the comparison of
 * a result with the CPU backend's. */
#ifndef ND_GPU_REDUCE_UTIL_H
#define ND_GPU_REDUCE_UTIL_H
#include <stdbool.h>

#include "test_util.h"

enum { GR_CONTIG, GR_TRANSPOSED, GR_NEGSTEP, GR_BROADCAST, GR_NUM_LAYOUTS };
extern const char *const gr_layout_names[GR_NUM_LAYOUTS];

/* value kinds of the generator */
enum {
    GR_RANDOM, /* ints over their range (wrapping sums), floats in [-8, 8) */
    GR_POS,    /* small positive values (well-conditioned float sums) */
    GR_NEAR1,  /* factors near 1 (products) */
    GR_EQUAL,  /* all elements equal (arg ties, all/any) */
    GR_NANS    /* GR_RANDOM with NaNs sprinkled (floats) */
};
/* Element i of an input of dtype t (never all-zero). */
double gr_value(nd_dtype t, int kind, uint64_t i, unsigned seed);
/* A (ndim, shape) array of dtype t on dev in the given layout, element
 * values gr_value(i) over the layout's BASE buffer (the same on every
 * device for the same arguments). */
nd_array *gr_make(int layout, nd_dtype t, int kind, unsigned seed, int ndim, const int64_t *shape, nd_device dev);
/* Compare got with want (same shape and dtype, any devices): bytes for
 * non-float dtypes, NaN positions and a relative tolerance for floats.
 * Returns the number of mismatches (and prints the first few). */
int64_t gr_compare(const nd_array *got, const nd_array *want, double tol, const char *what);
/* The value kind the matrix tests use for op on dtype t in layout l. */
int gr_kind_for(nd_reduce_op op, nd_dtype t, int layout);
/* The tolerance for a result of op in dtype rdt. */
double gr_tol(nd_reduce_op op, nd_dtype rdt);

TCase *tcase_gpu_reduce_emu(void);   /* tests/test_gpu_reduce_emu.c: CPU emulation of the kernels */
TCase *tcase_gpu_reduce_units(void); /* tests/test_gpu_reduce_emu.c: operators, geometry, partition */
#endif
