/* Helpers shared by the reduction suites (tests/test_reduce*.c). */
#ifndef ND_TEST_REDUCE_H
#define ND_TEST_REDUCE_H
#include <stdbool.h>

#include "test_util.h"

enum { RT_CONTIG, RT_TRANSPOSED, RT_NEGSTEP, RT_BROADCAST, RT_NUM_LAYOUTS };
extern const char *const rt_layout_names[RT_NUM_LAYOUTS];
extern const nd_dtype rt_expected_dtype[ND_NUM_REDUCE_OPS][ND_NUM_DTYPES];
extern int64_t rt_ncases;

/* element i of a host buffer of dtype t, as double / from double */
void rt_put(void *base, nd_dtype t, int64_t i, double v);
double rt_get(const void *base, nd_dtype t, int64_t i);
/* v rounded to dtype t and back */
double rt_quant(nd_dtype t, double v);
/* new C-contiguous CPU array from doubles (rounded to t) */
nd_array *rt_array(nd_dtype t, int ndim, const int64_t *shape, const double *vals);
/* a's elements in C order as doubles (malloc'd) */
double *rt_fetch(const nd_array *a);
bool rt_close(double got, double want, double tol);
double rt_tol(nd_dtype t);
double rt_gen(nd_reduce_op op, nd_dtype t, int64_t i);
/* Array of logical shape in the given layout, values gen(i) in C order
 * (written to L, rounded to t). */
nd_array *rt_make(int layout, nd_dtype t, int ndim, const int64_t *shape, double (*gen)(int64_t, void *), void *gctx,
                  double *L);
double *rt_reference(nd_reduce_op op, nd_dtype rdt, int ndim, const int64_t *shape, const double *L, const bool *mask,
                     double ddof, int64_t *nout);
/* One checked reduction (naxes ignored when axes == NULL). */
void rt_case(nd_reduce_op op, nd_dtype t, int layout, int ndim, const int64_t *shape, int naxes, const int *axes,
             bool keepdims, double ddof, bool use_out);

void rt_case_gen(nd_reduce_op op, nd_dtype t, int layout, int ndim, const int64_t *shape, int naxes, const int *axes,
                 bool keepdims, double ddof, bool use_out, double (*gen)(int64_t, void *), void *gctx);

/* NumPy-computed values (float32 overflow, real ddof) and the 0-d
 * argmax rule, run on device dev (tests/test_reduce_edge.c) */
void rt_known_values(nd_device dev);
void rt_arg_0d(nd_device dev);

TCase *tcase_reduce_edge(void);
TCase *tcase_reduce_large(void);
TCase *tcase_reduce_isa(void); /* tests/test_reduce_isa.c: every CPU path */
#endif
