/* libFuzzer target for the sparse .npz reader (nd_sparse_load_npz_buffer:
 * the zip structure, the DEFLATE decoder, the .npy members, the matrix
 * validation).
 *
 *   make fuzz FUZZ_SECONDS=60     (mk/fuzz.mk; clang, ASan + UBSan)
 *
 * Properties checked on every input:
 *  - no crash, no sanitizer report, no leak;
 *  - a failure leaves the out-pointer untouched and names
 *    nd_sparse_load_npz in its message;
 *  - a success is a valid matrix: its dense form can be made, and it
 *    survives a save/load round trip with the same format, shape, entries
 *    and dense bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ndgpu.h"

static char tmp_path[64];

static void remove_tmp(void) { unlink(tmp_path); }

static void dense_bytes(const nd_sparse *s, unsigned char **b, size_t *n)
{
    nd_array *d = NULL;
    if (nd_sparse_to_dense(&d, s) != ND_OK) __builtin_trap();
    *n = nd_nbytes(d);
    *b = malloc(*n + 1);
    if (nd_copy_to_host(*b, d, *n) != ND_OK) __builtin_trap();
    nd_release(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_sparse *s = (nd_sparse *)0x1;
    nd_status st = nd_sparse_load_npz_buffer(&s, data, size);
    if (st != ND_OK) {
        if (s != (nd_sparse *)0x1) __builtin_trap();
        if (!strstr(nd_last_error(), "nd_sparse_load_npz")) __builtin_trap();
        return 0;
    }
    /* dense forms of huge shapes are refused by the allocator's limit: skip them */
    if ((double)nd_sparse_rows(s) * (double)nd_sparse_cols(s) > 1e6) {
        nd_sparse_release(s);
        return 0;
    }
    if (!tmp_path[0]) {
        snprintf(tmp_path, sizeof tmp_path, "/tmp/ndgpu_fuzz_%d.npz", (int)getpid());
        atexit(remove_tmp);
    }
    if (nd_sparse_save_npz(tmp_path, s) != ND_OK) __builtin_trap();
    nd_sparse *b = NULL;
    if (nd_sparse_load_npz(&b, tmp_path) != ND_OK) __builtin_trap();
    if (nd_sparse_format_of(b) != nd_sparse_format_of(s) || nd_sparse_rows(b) != nd_sparse_rows(s) ||
        nd_sparse_cols(b) != nd_sparse_cols(s) || nd_sparse_nnz(b) != nd_sparse_nnz(s))
        __builtin_trap();
    unsigned char *x, *y;
    size_t nx, ny;
    dense_bytes(s, &x, &nx);
    dense_bytes(b, &y, &ny);
    if (nx != ny || memcmp(x, y, nx) != 0) __builtin_trap();
    free(x);
    free(y);
    nd_sparse_release(b);
    nd_sparse_release(s);
    return 0;
}
