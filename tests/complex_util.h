/* Complex test arrays from (re, im) doubles and back, shared by
 * the complex suites (tests/test_complex.c, tests/test_reduce_cpx.c). */
#ifndef ND_TEST_CX_UTIL_H
#define ND_TEST_CX_UTIL_H
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "creation_util.h"
#include "ndgpu.h"
#include "test_util.h"

/* n complex values (re[i], im[i]) as an array of dtype t (complex) on dev. */
static inline nd_array *cx_make(nd_dtype t, int ndim, const int64_t *shape, const double *re, const double *im, nd_device dev)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) {
        if (t == ND_COMPLEX64) {
            float v[2] = {(float)re[i], (float)im[i]};
            memcpy(raw + (size_t)i * 8, v, 8);
        } else {
            double v[2] = {re[i], im[i]};
            memcpy(raw + (size_t)i * 16, v, 16);
        }
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, t, ndim, shape, dev));
    free(raw);
    return a;
}

/* a's elements (C order) as doubles: re[i], im[i] (im NULL: a real array). */
static inline void cx_read(const nd_array *a, double *re, double *im)
{
    int64_t n = nd_size(a);
    nd_dtype t = nd_dtype_of(a);
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    ND_OK_OR_FAIL(nd_copy_to_host(raw, a, nd_nbytes(a)));
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *p = raw + (size_t)i * isz;
        if (t == ND_COMPLEX64) {
            float v[2];
            memcpy(v, p, 8);
            re[i] = v[0];
            if (im) im[i] = v[1];
        } else if (t == ND_COMPLEX128) {
            double v[2];
            memcpy(v, p, 16);
            re[i] = v[0];
            if (im) im[i] = v[1];
        } else {
            re[i] = cv_elem_f64(p, t);
            if (im) im[i] = 0.0;
        }
    }
    free(raw);
}

#endif
