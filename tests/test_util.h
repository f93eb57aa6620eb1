/* Shared helpers for the Check suites. */
#ifndef ND_TEST_UTIL_H
#define ND_TEST_UTIL_H

#include <check.h>
/* Check's ck_assert_msg (which every ck_assert_* macro expands to) calls
 * _mark_point on each assertion that passes, and _mark_point writes the
 * file and line to Check's message file: one write(2) per passing
 * assertion. The suites assert inside loops over every element, so those
 * writes were most of the suite's time (the sort suite: 54 s, 35 of them
 * in the kernel). Here a passing assertion costs nothing; a failing one
 * reports exactly as before. What is lost is the "last passing
 * assertion" location Check prints when a test dies of a signal; the
 * sanitizer builds print the crash's stack instead, and mark_point() is
 * still there for a test that wants a trail. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
    ((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndgpu.h"

/* The number of usable CUDA devices, for deciding in a suite constructor
 * which tests to add. Check forks a child per test, and a CUDA driver
 * initialised in a parent is unusable in its forked children (every call
 * fails with cudaErrorInitializationError), so the runner (test_main.c)
 * never lets the parent touch CUDA: it asks nd_cuda_device_count() once in
 * a forked probe child and caches the answer. With CK_FORK=no everything
 * runs in one process and the count is asked directly. Tests that run in
 * the child may call nd_cuda_device_count() themselves. */
int nd_test_gpu_count(void);

/* Whether the very large cases run (30M-element arrays, operands spanning
 * over 2 GiB): ND_TEST_LARGE=0 leaves them out (tools/gpu-check.sh does so
 * under compute-sanitizer, `make valgrind` under valgrind, where they would
 * take minutes; race tests take fewer iterations); the suites then say so
 * rather than count them as passed. */
/* The real dtypes: every dtype before complex64. The suites of ops that do
 * not take complex input yet (reductions, sorting, scans, the
 * elementwise harness, collectives) loop over these; such ops refuse
 * complex with ND_ERR_DTYPE, which tests/test_complex.c checks. */
#define NT_NREAL ((int)ND_COMPLEX64)

static inline int nd_test_large(void)
{
    const char *e = getenv("ND_TEST_LARGE");
    return !(e && strcmp(e, "0") == 0);
}

/* Assert a call returns ND_OK, printing nd_last_error() otherwise. */
#define ND_OK_OR_FAIL(call)                                                              \
    do {                                                                                 \
        nd_status st_ = (call);                                                          \
        ck_assert_msg(st_ == ND_OK, "%s -> %s: %s", #call, nd_status_name(st_), nd_last_error()); \
    } while (0)

/* Assert a call fails with status `code` and that nd_last_error() contains
 * the substring `needle`. */
#define ND_EXPECT_ERR(call, code, needle)                                                \
    do {                                                                                 \
        nd_status st_ = (call);                                                          \
        ck_assert_msg(st_ == (code), "%s -> %s (want %s): %s", #call, nd_status_name(st_), \
                      nd_status_name(code), nd_last_error());                            \
        ck_assert_msg(strstr(nd_last_error(), (needle)) != NULL,                         \
                      "%s: message '%s' lacks '%s'", #call, nd_last_error(), (needle));  \
    } while (0)

/* Every suite file defines one constructor; tests/test_main.c runs them. */
Suite *suite_core(void);
Suite *suite_dtype(void);
Suite *suite_creation(void); /* not suite_create: that is Check's own function */
Suite *suite_views(void);
Suite *suite_elementwise(void);
Suite *suite_reduce(void);
Suite *suite_linalg(void);
Suite *suite_random(void);
Suite *suite_npy(void);
Suite *suite_gpu_ew(void);     /* tests/test_gpu_ew.c */
Suite *suite_gpu_reduce(void); /* tests/test_gpu_reduce.c */
Suite *suite_gpu_random(void); /* tests/test_gpu_random.c */
Suite *suite_gpu_linalg(void); /* tests/test_gpu_linalg.c: matmul, gemm, random */
Suite *suite_coverage(void);   /* tests/test_coverage.c */
Suite *suite_dlpack(void);
Suite *suite_pool(void);
Suite *suite_runtime(void);
Suite *suite_gpu(void);
Suite *suite_vmath(void);
Suite *suite_out(void);      /* tests/test_out.c: the out rule for every function */
Suite *suite_findings(void); /* tests/test_findings.c: the correctness findings */

/* Every element of a (float32, any device) equals want (a test of the
 * streams and pools: one value everywhere shows which write won). */
static inline void nd_test_expect_all_f32(const nd_array *a, float want, const char *what)
{
    int64_t n = nd_size(a);
    float *v = malloc((size_t)n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    ND_OK_OR_FAIL(nd_copy_to_host(v, a, (size_t)n * sizeof *v));
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (v[i] != want) bad = i;
    float got = bad >= 0 ? v[bad] : want;
    free(v);
    ck_assert_msg(bad < 0, "%s: element %lld is %g, want %g", what, (long long)bad, (double)got, (double)want);
}

#endif
