/* libFuzzer target for the .npy parser (nd_load_npy_buffer).
 *
 *   make fuzz FUZZ_SECONDS=60     (mk/fuzz.mk; clang, ASan + UBSan)
 *
 * Properties checked on every input:
 *  - no crash, no sanitizer report, no leak;
 *  - a failure is ND_ERR_IO or ND_ERR_DTYPE with a message naming
 *    nd_load_npy_buffer, and leaves the out-pointer NULL;
 *  - a success never claims more data bytes than the input holds, and
 *    the array survives a save/load round trip bit-exactly (same dtype,
 *    shape and C-ordered bytes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ndgpu.h"

static char tmp_path[64];

static void remove_tmp(void) { unlink(tmp_path); }

static void roundtrip(nd_array *a)
{
    if (!tmp_path[0]) {
        snprintf(tmp_path, sizeof tmp_path, "/tmp/ndgpu_fuzz_%d.npy", (int)getpid());
        atexit(remove_tmp);
    }
    if (nd_save_npy(tmp_path, a) != ND_OK) __builtin_trap();
    nd_array *b = NULL;
    if (nd_load_npy(&b, tmp_path, nd_cpu()) != ND_OK) __builtin_trap();
    if (nd_dtype_of(b) != nd_dtype_of(a) || nd_ndim(b) != nd_ndim(a)) __builtin_trap();
    for (int i = 0; i < nd_ndim(a); i++)
        if (nd_shape(a)[i] != nd_shape(b)[i]) __builtin_trap();
    size_t nb = nd_nbytes(a);
    if (nb != nd_nbytes(b)) __builtin_trap();
    if (nb) {
        unsigned char *x = malloc(nb), *y = malloc(nb);
        if (nd_copy_to_host(x, a, nb) != ND_OK || nd_copy_to_host(y, b, nb) != ND_OK) __builtin_trap();
        if (memcmp(x, y, nb) != 0) __builtin_trap();
        free(x);
        free(y);
    }
    nd_release(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_array *a = NULL;
    nd_status st = nd_load_npy_buffer(&a, data, size, nd_cpu());
    if (st != ND_OK) {
        if (a != NULL) __builtin_trap();
        if (st != ND_ERR_IO && st != ND_ERR_DTYPE) __builtin_trap();
        if (strstr(nd_last_error(), "nd_load_npy_buffer") == NULL) __builtin_trap();
        return 0;
    }
    if (a == NULL || nd_nbytes(a) > size || !nd_is_contiguous(a)) __builtin_trap();
    roundtrip(a);
    nd_release(a);
    return 0;
}
