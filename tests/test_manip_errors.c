/* Manipulation error cases (a TCase of the "manip" suite): exact statuses,
 * messages naming the problem (NumPy's wording where it has one), *out
 * untouched on failure. */
#include "manip_util.h"

TCase *mp_tcase_errors(void);

START_TEST(test_manip_error_statuses)
{
    nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){3, 4}, nd_cpu()), *r = NULL;
    nd_array *v = cv_iota(ND_INT64, 1, (const int64_t[]){5}, nd_cpu());
    ND_EXPECT_ERR(nd_flip(&r, a, 1, (const int[]){2}), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_flip(&r, a, 2, (const int[]){0, -2}), ND_ERR_INVALID, "repeated axis");
    ND_EXPECT_ERR(nd_flip(&r, NULL, 0, NULL), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_swapaxes(&r, a, 0, -3), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_moveaxis(&r, a, 2, (const int[]){0, 0}, (const int[]){0, 1}), ND_ERR_INVALID, "repeated axis in 'source'");
    ND_EXPECT_ERR(nd_moveaxis(&r, a, 1, (const int[]){0}, (const int[]){5}), ND_ERR_SHAPE, "axis 5 is out of bounds");
    ND_EXPECT_ERR(nd_diagonal(&r, v, 0, 0, 1), ND_ERR_INVALID, "at least two dimensions");
    ND_EXPECT_ERR(nd_diagonal(&r, a, 0, 1, -1), ND_ERR_INVALID, "axis1 and axis2 cannot be the same");
    ND_EXPECT_ERR(nd_trace(&r, v, 0, 0, 1), ND_ERR_INVALID, "at least two dimensions");
    ck_assert_ptr_null(r);
    /* a diagonal is read-only: refused as out */
    nd_array *dg = NULL, *z = cv_iota(ND_FLOAT32, 1, (const int64_t[]){3}, nd_cpu());
    ND_OK_OR_FAIL(nd_diagonal(&dg, a, 0, 0, 1));
    ND_EXPECT_ERR(nd_copy(&dg, z), ND_ERR_INVALID, "read-only");
    nd_release(dg), nd_release(z);
    /* broadcast_arrays */
    nd_array *outs[4] = {NULL, NULL, NULL, NULL};
    ND_EXPECT_ERR(nd_broadcast_arrays(outs, 2, (const nd_array *[]){a, v}), ND_ERR_SHAPE, "do not broadcast");
    ck_assert_ptr_null(outs[0]);
    /* split family */
    int64_t cnt = -1;
    ND_EXPECT_ERR(nd_split(outs, 4, &cnt, a, 0, 0), ND_ERR_INVALID, "number sections must be larger than 0");
    ND_EXPECT_ERR(nd_split(outs, 4, &cnt, a, 2, 0), ND_ERR_INVALID, "array split does not result in an equal division");
    ND_EXPECT_ERR(nd_array_split(outs, 2, &cnt, a, 3, 1), ND_ERR_INVALID, "capacity 2");
    ck_assert_int_eq(cnt, 3);
    ND_EXPECT_ERR(nd_split_at(outs, 4, &cnt, a, 1, (const int64_t[]){1}, 2), ND_ERR_SHAPE, "axis 2 is out of bounds");
    nd_array *s0 = NULL;
    ND_OK_OR_FAIL(nd_full(&s0, ND_INT8, 0, NULL, nd_scalar_int(3), nd_cpu()));
    ND_EXPECT_ERR(nd_unstack(outs, 4, &cnt, s0, 0), ND_ERR_INVALID, "at least 1-d");
    /* a given entry of the wrong shape: nothing written, nothing made */
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_FLOAT32, 1, (const int64_t[]){7}, nd_cpu()));
    outs[1] = bad;
    ND_EXPECT_ERR(nd_unstack(outs, 4, &cnt, a, 0), ND_ERR_SHAPE, "'out' has shape (7,)");
    ck_assert_ptr_null(outs[0]);
    ck_assert_ptr_eq(outs[1], bad);
    outs[1] = NULL;
    /* roll, tile, repeat */
    ND_EXPECT_ERR(nd_roll(&r, a, 2, (const int64_t[]){1, 2}, 3, (const int[]){0, 1, 0}), ND_ERR_INVALID, "shape mismatch");
    ND_EXPECT_ERR(nd_roll(&r, a, 2, (const int64_t[]){1, 2}, 0, NULL), ND_ERR_INVALID, "one value");
    ND_EXPECT_ERR(nd_roll(&r, a, 1, (const int64_t[]){1}, 1, (const int[]){-3}), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_tile(&r, a, 1, (const int64_t[]){-1}), ND_ERR_INVALID, "negative dimensions are not allowed");
    ND_EXPECT_ERR(nd_repeat(&r, a, -1, ND_AXIS_NONE), ND_ERR_INVALID, "negative dimensions are not allowed");
    ND_EXPECT_ERR(nd_repeat(&r, a, 2, 2), ND_ERR_SHAPE, "axis 2 is out of bounds");
    /* pad */
    ND_EXPECT_ERR(nd_pad(&r, a, 1, (const int64_t[]){-1, 0}, ND_PAD_EDGE, nd_scalar_none()), ND_ERR_INVALID,
                  "index can't contain negative values");
    ND_EXPECT_ERR(nd_pad(&r, a, 3, (const int64_t[]){1, 1, 1, 1, 1, 1}, ND_PAD_EDGE, nd_scalar_none()), ND_ERR_INVALID, "pairs");
    ND_EXPECT_ERR(nd_pad(&r, a, 1, (const int64_t[]){1, 1}, (nd_pad_mode)9, nd_scalar_none()), ND_ERR_INVALID, "mode 9");
    nd_array *e = NULL, *i8 = cv_iota(ND_INT8, 1, (const int64_t[]){3}, nd_cpu());
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT64, 2, (const int64_t[]){0, 2}, nd_cpu()));
    ND_EXPECT_ERR(nd_pad(&r, e, 2, (const int64_t[]){1, 0, 0, 0}, ND_PAD_WRAP, nd_scalar_none()), ND_ERR_INVALID,
                  "can't extend empty axis 0 using modes other than 'constant' or 'empty'");
    ND_OK_OR_FAIL(nd_pad(&r, e, 2, (const int64_t[]){0, 0, 2, 1}, ND_PAD_REFLECT, nd_scalar_none()));
    cv_expect_shape(r, 2, (const int64_t[]){0, 5});
    nd_release(r), r = NULL;
    ND_OK_OR_FAIL(nd_pad(&r, e, 1, (const int64_t[]){1, 1}, ND_PAD_CONSTANT, nd_scalar_float(2.5)));
    cv_expect_values(r, 8, (const double[]){2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
    nd_release(r), r = NULL;
    ND_EXPECT_ERR(nd_pad(&r, i8, 1, (const int64_t[]){1, 1}, ND_PAD_CONSTANT, nd_scalar_int(1000)), ND_ERR_INVALID,
                  "1000");
    /* diag, tril, tensordot, outer, meshgrid */
    nd_array *c3 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&c3, ND_FLOAT32, 3, (const int64_t[]){2, 2, 2}, nd_cpu()));
    ND_EXPECT_ERR(nd_diag(&r, c3, 0), ND_ERR_INVALID, "Input must be 1- or 2-d.");
    ND_EXPECT_ERR(nd_tril(&r, s0, 0), ND_ERR_INVALID, "0-d");
    ND_EXPECT_ERR(nd_tensordot(&r, a, a, 1, NULL, NULL), ND_ERR_SHAPE, "shape-mismatch for sum");
    ND_EXPECT_ERR(nd_tensordot(&r, a, v, 3, NULL, NULL), ND_ERR_SHAPE, "shape-mismatch for sum");
    ND_EXPECT_ERR(nd_tensordot(&r, a, a, -1, NULL, NULL), ND_ERR_INVALID, "negative");
    ND_EXPECT_ERR(nd_tensordot(&r, a, a, 1, (const int[]){0}, NULL), ND_ERR_INVALID, "both");
    ND_EXPECT_ERR(nd_tensordot(&r, a, a, 2, (const int[]){0, 0}, (const int[]){0, 1}), ND_ERR_INVALID, "repeated");
    ND_EXPECT_ERR(nd_meshgrid(outs, 2, (const nd_array *[]){a, v}, (nd_meshgrid_indexing)5, true), ND_ERR_INVALID,
                  "Valid values for `indexing` are 'xy' and 'ij'.");
    /* an out of the wrong shape or a narrower kind: refused, untouched */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_INT32, 2, (const int64_t[]){3, 4}, nd_cpu()));
    nd_array *keep = o;
    ND_EXPECT_ERR(nd_flip(&o, a, 0, NULL), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_roll(&o, a, 1, (const int64_t[]){1}, 0, NULL), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_tile(&o, v, 1, (const int64_t[]){2}), ND_ERR_SHAPE, "'out' has shape (3,4)");
    ck_assert_ptr_eq(o, keep);
    double *ov = cv_values(o);
    for (int i = 0; i < 12; i++) ck_assert(ov[i] == 0);
    free(ov);
    if (nd_test_gpu_count() > 0) {
        nd_array *g = cv_iota(ND_FLOAT32, 1, (const int64_t[]){5}, nd_cuda(0));
        ND_EXPECT_ERR(nd_outer(&r, v, g), ND_ERR_DEVICE, "different devices");
        ND_EXPECT_ERR(nd_broadcast_arrays(outs, 2, (const nd_array *[]){v, g}), ND_ERR_DEVICE, "another device");
        nd_release(g);
    }
    ck_assert_ptr_null(r);
    nd_release(o), nd_release(c3), nd_release(e), nd_release(i8), nd_release(bad), nd_release(s0);
    nd_release(a), nd_release(v);
}
END_TEST

/* NumPy 2.4 constants (pasted) of the views' geometry */
START_TEST(test_manip_views_numpy)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        /* x = np.arange(1, 25).reshape(2, 3, 4) */
        nd_array *x = cv_iota(ND_INT16, 3, (const int64_t[]){2, 3, 4}, devs[d]), *r = NULL;
        /* np.diagonal(x, 1, 2, 0).ravel() -> shape (3, 1) */
        ND_OK_OR_FAIL(nd_diagonal(&r, x, 1, 2, 0));
        cv_expect_shape(r, 2, (const int64_t[]){3, 1});
        cv_expect_values(r, 3, (const double[]){13, 17, 21});
        nd_release(r), r = NULL;
        /* np.moveaxis(x, [0, 1], [-1, -3]).shape == (3, 4, 2); ravel starts 1, 13, 2, 14 */
        ND_OK_OR_FAIL(nd_moveaxis(&r, x, 2, (const int[]){0, 1}, (const int[]){-1, -3}));
        cv_expect_shape(r, 3, (const int64_t[]){3, 4, 2});
        double *vals = cv_values(r);
        ck_assert(vals[0] == 1 && vals[1] == 13 && vals[2] == 2 && vals[3] == 14 && vals[23] == 24);
        free(vals);
        nd_release(r), r = NULL;
        /* np.trace(x, -1, 1, 2) = [5 + 10, 17 + 22] */
        ND_OK_OR_FAIL(nd_trace(&r, x, -1, 1, 2));
        ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
        cv_expect_values(r, 2, (const double[]){15, 39});
        nd_release(r), r = NULL;
        /* np.roll(x, (1, -1), axis=(2, 0))[0, 0] = [16, 13, 14, 15] */
        ND_OK_OR_FAIL(nd_roll(&r, x, 2, (const int64_t[]){1, -1}, 2, (const int[]){2, 0}));
        vals = cv_values(r);
        ck_assert(vals[0] == 16 && vals[1] == 13 && vals[2] == 14 && vals[3] == 15);
        free(vals);
        nd_release(r), r = NULL;
        /* in place (out is the input): flip, roll, tril, swapaxes of a square matrix */
        nd_array *m = cv_iota(ND_FLOAT64, 2, (const int64_t[]){3, 3}, devs[d]);
        ND_OK_OR_FAIL(nd_flip(&m, m, 1, (const int[]){1}));
        cv_expect_values(m, 9, (const double[]){3, 2, 1, 6, 5, 4, 9, 8, 7});
        ND_OK_OR_FAIL(nd_roll(&m, m, 1, (const int64_t[]){1}, 1, (const int[]){0}));
        cv_expect_values(m, 9, (const double[]){9, 8, 7, 3, 2, 1, 6, 5, 4});
        ND_OK_OR_FAIL(nd_swapaxes(&m, m, 0, 1));
        cv_expect_values(m, 9, (const double[]){9, 3, 6, 8, 2, 5, 7, 1, 4});
        ND_OK_OR_FAIL(nd_tril(&m, m, 0));
        cv_expect_values(m, 9, (const double[]){9, 0, 0, 8, 2, 0, 7, 1, 4});
        ND_OK_OR_FAIL(nd_einsum(&m, "ij->ji", 1, (const nd_array *[]){m}));
        cv_expect_values(m, 9, (const double[]){9, 8, 7, 0, 2, 1, 0, 0, 4});
        nd_release(m);
        nd_release(x);
    }
}
END_TEST

/* Offsets at the ends of int64 (no negation of INT64_MIN), outer's
 * out-of-memory message, a 0-d pad with a negative width. */
START_TEST(test_manip_edge_arguments)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){3, 4}, devs[d]), *r = NULL;
        nd_array *v = cv_iota(ND_INT64, 1, (const int64_t[]){3}, devs[d]);
        const int64_t offs[2] = {INT64_MIN, INT64_MAX};
        for (int k = 0; k < 2; k++) {
            /* np.diagonal(a, -2**63) and (a, 2**63 - 1): empty; np.trace: 0 */
            ND_OK_OR_FAIL(nd_diagonal(&r, a, offs[k], 0, 1));
            cv_expect_shape(r, 1, (const int64_t[]){0});
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_diagonal(&r, a, offs[k], 1, 0));
            cv_expect_shape(r, 1, (const int64_t[]){0});
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_trace(&r, a, offs[k], 0, 1));
            cv_expect_values(r, 1, (const double[]){0});
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_diag(&r, a, offs[k]));
            cv_expect_shape(r, 1, (const int64_t[]){0});
            nd_release(r), r = NULL;
            /* a 1-D input would need an (n + |k|)^2 result */
            ND_EXPECT_ERR(nd_diag(&r, v, offs[k]), ND_ERR_INVALID, "is too large");
            ck_assert_ptr_null(r);
        }
        /* the out-of-memory message of nd_outer names nd_outer */
        nd_array *big = NULL;
        ND_OK_OR_FAIL(nd_zeros(&big, ND_FLOAT64, 1, (const int64_t[]){2000}, devs[d]));
        nd_memory_stats s;
        ND_OK_OR_FAIL(nd_memory_get_stats(&s, devs[d]));
        ND_OK_OR_FAIL(nd_memory_set_limit(devs[d], s.in_use + (1u << 20)));
        nd_status st = nd_outer(&r, big, big);
        ND_OK_OR_FAIL(nd_memory_set_limit(devs[d], 0));
        ck_assert_msg(st == ND_ERR_NOMEM, "nd_outer under a limit -> %s: %s", nd_status_name(st), nd_last_error());
        ck_assert_msg(strncmp(nd_last_error(), "nd_outer: ", 10) == 0, "message '%s' does not start with nd_outer",
                      nd_last_error());
        ck_assert_ptr_null(r);
        nd_release(big);
        /* np.pad(np.array(5.0), -1) and ((-1, 1),): ValueError; (0, 0) and (2, 2) give the 0-d array */
        nd_array *z = NULL;
        ND_OK_OR_FAIL(nd_full(&z, ND_FLOAT64, 0, NULL, nd_scalar_float(5), devs[d]));
        ND_EXPECT_ERR(nd_pad(&r, z, 1, (const int64_t[]){-1, -1}, ND_PAD_CONSTANT, nd_scalar_none()), ND_ERR_INVALID,
                      "index can't contain negative values");
        ND_EXPECT_ERR(nd_pad(&r, z, 1, (const int64_t[]){-1, 1}, ND_PAD_EDGE, nd_scalar_none()), ND_ERR_INVALID,
                      "index can't contain negative values");
        ck_assert_ptr_null(r);
        ND_OK_OR_FAIL(nd_pad(&r, z, 1, (const int64_t[]){2, 2}, ND_PAD_CONSTANT, nd_scalar_none()));
        ck_assert_int_eq(nd_ndim(r), 0);
        cv_expect_values(r, 1, (const double[]){5});
        nd_release(r), r = NULL;
        nd_release(z), nd_release(v), nd_release(a);
    }
}
END_TEST

TCase *mp_tcase_errors(void)
{
    TCase *tc = tcase_create("manip_errors");
    tcase_add_test(tc, test_manip_error_statuses);
    tcase_add_test(tc, test_manip_views_numpy);
    tcase_add_test(tc, test_manip_edge_arguments);
    return tc;
}
