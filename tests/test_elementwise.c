/* suite_elementwise: the cross-backend harness (test_elementwise_harness.c),
 * exact NumPy-derived cases (test_elementwise_exact.c), where/clip
 * (test_elementwise_select.c) and bad input (test_elementwise_errors.c). */
#include "harness.h"

Suite *suite_elementwise(void)
{
    Suite *s = suite_create("elementwise");
    suite_add_tcase(s, ew_tcase_harness());
    suite_add_tcase(s, ew_tcase_exact());
    suite_add_tcase(s, ew_tcase_select());
    suite_add_tcase(s, ew_tcase_errors());
    suite_add_tcase(s, ew_tcase_ops13());
    return s;
}
