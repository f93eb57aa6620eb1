/* Shared helpers of tests/test_npy.c and tests/test_npy_hostile.c. */
#ifndef ND_NPY_TEST_H
#define ND_NPY_TEST_H
#include <stddef.h>

#include "test_util.h"

/* Path of a golden file in tests/data (ND_TEST_DATA overrides the
 * directory); a static buffer. */
const char *npy_data_path(const char *name);
/* Whole file into malloc'd memory (fails the test when unreadable). */
unsigned char *npy_read_file(const char *path, size_t *size);
/* A fresh temporary file name (the file exists, empty). */
void npy_tmp_path(char *buf, size_t cap);
/* Adds the hostile-input cases to s (tests/test_npy_hostile.c). */
void npy_add_hostile_tests(Suite *s);

#endif
