/* The out rule's core cases for every public function with an
 * `nd_array **out` parameter (the adapter tables of tests/out_api.h;
 * tools/out_api.py checks against the public header that none is
 * missing). For each function:
 *  - *out == NULL allocates the result;
 *  - a given out of the result's shape and dtype, poisoned first, is
 *    written in place: the same pointer comes back, holding the bytes of
 *    the fresh result;
 *  - a given out of a wrong shape is refused with ND_ERR_SHAPE and a
 *    message naming the function, and is neither replaced nor written.
 * Cases run on nd_default_device(): the CPU in `make test`, the (emulated)
 * GPU in `make emu-test`. */
#include "out_api.h"
#include "test_util.h"

#define POISON 0x5A

static const out_api_entry *entry_at(int i)
{
    return (size_t)i < out_api_core_n ? &out_api_core[i] : &out_api_families[(size_t)i - out_api_core_n];
}

static nd_array *put(const void *data, nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, data, t, ndim, shape, dev));
    return a;
}

static void fx_make(out_fx *f)
{
    static const int64_t s23[2] = {2, 3}, s3[1] = {3}, s33[2] = {3, 3}, s5[1] = {5}, s2[1] = {2}, s21[2] = {2, 1};
    static const double a[6] = {0.5, -1.25, 2.0, 3.75, -0.5, 1.5}, b[6] = {1.5, 2.25, -0.75, 0.25, 3.0, -2.5};
    static const double pos[6] = {0.2, 0.35, 0.5, 0.65, 0.8, 0.9}, big[6] = {1.5, 2.0, 2.5, 3.0, 3.5, 4.0};
    static const double v3[3] = {1.0, -2.0, 0.5}, srt[5] = {-2, -0.5, 1, 3, 7};
    static const double sq[9] = {4, 1, 0.5, 1, 3, 0.25, 0.5, 0.25, 2};
    static const double cx[12] = {1, 0.5, -2, 1.5, 0.25, -1, 3, 2, -1.5, -0.5, 2.5, 0.75};
    static const double prob[6] = {0.1, 0.9, 0.5, 0.3, 0.7, 0.2};
    static const int64_t ia[6] = {3, -7, 12, 5, 9, -2}, ib[6] = {2, 3, 5, 1, 4, 6};
    static const int64_t idx[2] = {2, 0}, reps[3] = {1, 2, 1}, labels[2] = {1, 2};
    static const bool mask[6] = {1, 0, 1, 1, 0, 1}, mask3[3] = {1, 0, 1};
    double an[6];
    memcpy(an, a, sizeof an);
    an[1] = NAN;
    nd_device d = f->dev = nd_default_device();
    f->a = put(a, ND_FLOAT64, 2, s23, d);
    f->b = put(b, ND_FLOAT64, 2, s23, d);
    f->pos = put(pos, ND_FLOAT64, 2, s23, d);
    f->big = put(big, ND_FLOAT64, 2, s23, d);
    f->an = put(an, ND_FLOAT64, 2, s23, d);
    f->ia = put(ia, ND_INT64, 2, s23, d);
    f->ib = put(ib, ND_INT64, 2, s23, d);
    f->v3 = put(v3, ND_FLOAT64, 1, s3, d);
    f->sq = put(sq, ND_FLOAT64, 2, s33, d);
    f->srt = put(srt, ND_FLOAT64, 1, s5, d);
    f->cx = put(cx, ND_COMPLEX128, 2, s23, d);
    f->mask = put(mask, ND_BOOL, 2, s23, d);
    f->mask3 = put(mask3, ND_BOOL, 1, s3, d);
    f->idx = put(idx, ND_INT64, 1, s2, d);
    f->idx21 = put(idx, ND_INT64, 2, s21, d);
    f->reps = put(reps, ND_INT64, 1, s3, d);
    f->labels = put(labels, ND_INT64, 1, s2, d);
    f->prob = put(prob, ND_FLOAT64, 2, s23, d);
}

static void fx_free(out_fx *f)
{
    nd_array *all[] = {f->a,   f->b,  f->pos,   f->big, f->an,  f->ia,    f->ib,   f->v3,     f->sq,
                       f->srt, f->cx, f->mask, f->mask3, f->idx, f->idx21, f->reps, f->labels, f->prob};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(all[i]);
}

/* x's elements in C order on the host (malloc'd, at least one byte) */
static unsigned char *host_bytes(const nd_array *x)
{
    size_t n = nd_nbytes(x);
    unsigned char *h = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(h);
    ND_OK_OR_FAIL(nd_copy_to_host(h, x, n));
    return h;
}

/* a new C-contiguous array whose every byte is POISON */
static nd_array *poisoned(nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, t, ndim, shape, dev));
    size_t n = nd_nbytes(o);
    unsigned char *h = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(h);
    memset(h, POISON, n);
    ND_OK_OR_FAIL(nd_copy_from_host(o, h, n));
    free(h);
    return o;
}

/* The fresh result: *out == NULL allocates. */
static nd_array *fresh_result(const out_api_entry *e, const out_fx *f)
{
    nd_array *ref = NULL;
    nd_status st = e->call(&ref, f);
    ck_assert_msg(st == ND_OK, "%s with *out == NULL: %s: %s", e->name, nd_status_name(st), nd_last_error());
    ck_assert_msg(ref != NULL, "%s with *out == NULL returned ND_OK but no array", e->name);
    return ref;
}

/* A given out of the result's shape and dtype is written in place. */
static void check_in_place(const out_api_entry *e, const out_fx *f, const nd_array *ref)
{
    nd_array *o = poisoned(nd_dtype_of(ref), nd_ndim(ref), nd_shape(ref), nd_device_of(ref)), *given = o;
    nd_status st = e->call(&o, f);
    ck_assert_msg(st == ND_OK, "%s into a matching out: %s: %s", e->name, nd_status_name(st), nd_last_error());
    ck_assert_msg(o == given, "%s replaced the given out instead of writing it", e->name);
    if (!(e->flags & OUT_UNDEFINED)) {
        size_t n = nd_nbytes(ref);
        unsigned char *want = host_bytes(ref), *got = host_bytes(o);
        size_t i = 0;
        while (i < n && want[i] == got[i]) i++;
        ck_assert_msg(i == n, "%s into a matching out: byte %zu of %zu is 0x%02x, the fresh result has 0x%02x", e->name,
                      i, n, i < n ? got[i] : 0, i < n ? want[i] : 0);
        free(want);
        free(got);
    }
    nd_release(o);
}

/* A given out of a wrong shape is refused and left as it was. */
static void check_wrong_shape(const out_api_entry *e, const out_fx *f, const nd_array *ref)
{
    int ndim = nd_ndim(ref);
    int64_t shape[ND_MAX_DIMS] = {2}; /* a 0-d result: (2,) */
    if (ndim > 0) {
        memcpy(shape, nd_shape(ref), sizeof(int64_t) * (size_t)ndim);
        shape[0] += 1; /* one row more: no function broadcasts its result to that */
    } else {
        ndim = 1;
    }
    nd_array *w = poisoned(nd_dtype_of(ref), ndim, shape, nd_device_of(ref)), *given = w;
    nd_status st = e->call(&w, f);
    ck_assert_msg(st == ND_ERR_SHAPE, "%s into an out of a wrong shape: %s (want ND_ERR_SHAPE): %s", e->name,
                  nd_status_name(st), nd_last_error());
    ck_assert_msg(strstr(nd_last_error(), e->name) != NULL, "%s: the message '%s' does not name the function", e->name,
                  nd_last_error());
    ck_assert_msg(w == given, "%s replaced a refused out", e->name);
    size_t n = nd_nbytes(w);
    unsigned char *h = host_bytes(w);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(h[i] == POISON, "%s wrote byte %zu of an out it refused", e->name, i);
    free(h);
    nd_release(w);
}

START_TEST(test_out_api_rule)
{
    const out_api_entry *e = entry_at(_i);
    out_fx f;
    fx_make(&f);
    nd_array *ref = fresh_result(e, &f);
    check_in_place(e, &f, ref);
    check_wrong_shape(e, &f, ref);
    nd_release(ref);
    fx_free(&f);
}
END_TEST

/* Every entry names a distinct function and has an adapter. */
START_TEST(test_out_api_table)
{
    size_t n = out_api_core_n + out_api_families_n;
    for (size_t i = 0; i < n; i++) {
        const out_api_entry *e = entry_at((int)i);
        ck_assert_msg(e->name && e->call, "entry %zu is incomplete", i);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(e->name, entry_at((int)j)->name) != 0, "%s has two entries", e->name);
    }
}
END_TEST

Suite *suite_out_api(void);
Suite *suite_out_api(void)
{
    Suite *s = suite_create("out_api");
    TCase *tc = tcase_create("out_api");
    tcase_add_test(tc, test_out_api_table);
    tcase_add_loop_test(tc, test_out_api_rule, 0, (int)(out_api_core_n + out_api_families_n));
    suite_add_tcase(s, tc);
    return s;
}
