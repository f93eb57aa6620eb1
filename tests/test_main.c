/* The one Check runner: every suite of the project, one summary line. */
#include <stdio.h>

#include "test_util.h"

typedef Suite *(*suite_fn)(void);

/* Weak while suites are being written in parallel; a missing suite is
 * reported, never counted as passed. */
#define SUITES(X) X(core) X(dtype) X(creation) X(views) X(elementwise) X(reduce) X(linalg) X(random) X(npy) X(dlpack) X(pool) X(runtime) X(gpu) X(gpu_ew) X(gpu_reduce) X(gpu_linalg) X(gpu_random) X(coverage) X(vmath)
#define X(n) __attribute__((weak)) Suite *suite_##n(void);
SUITES(X)
#undef X

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    int missing = 0;
#define X(n)                                                            \
    if (suite_##n) srunner_add_suite(sr, suite_##n());                  \
    else { fprintf(stderr, "suite '%s' is MISSING\n", #n); missing++; }
    SUITES(X)
#undef X
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return (failed == 0 && missing == 0) ? 0 : 1;
}
