/* libFuzzer target for the expression language (nd_expr_eval): the
 * tokenizer, the parser, literal folding, typing and the fused CPU
 * evaluation of strings nobody checked; and, with bit 5 of the first byte
 * set, the user kernels' parameter lists and names (nd_kernel_elementwise
 * and nd_kernel_reduction take the input's lines as their strings; their
 * bodies compile at the first call, which the fuzzer does not make); and,
 * with bit 6 set, einsum's subscripts (nd_einsum over the operands, the
 * rest of the input as the subscripts string).
 *
 *   make fuzz FUZZ_SECONDS=60     (mk/fuzz.mk; clang, ASan + UBSan)
 *
 * The input's first bytes choose up to four operands (their names from a
 * table that also holds bad names, their dtypes, shapes and a fill value)
 * and whether the result goes into a given array; the rest, up to 4200
 * bytes (the language's limit is 4096 characters), is the expression. The
 * CPU allocator is capped at 16 MiB, and the operands are small, so every
 * evaluation is quick.
 *
 * Properties checked after every call:
 *  - no crash, no sanitizer report (UBSan catches signed overflow), no leak;
 *  - on failure *out is untouched (NULL stays NULL, a given array stays
 *    the same array with the same bits), the status is a known code and
 *    nd_last_error() is a message naming nd_expr_eval;
 *  - on success the result's size is the product of its shape and its
 *    byte count is size * itemsize;
 *  - a second evaluation of the same call (the program from the cache)
 *    gives the same bits. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_reader.h"
#include "ndgpu.h"

#define NOPS 4
#define EXPR_MAX 4200


static const char *const NAMES[] = {"a", "b", "c", "x_1", "_", "exp", "where", "sum", "float32", "True",
                                    "",  "1a", "a b", "a", "A", "axis"};
/* (ndim, extents): 0-d, (1,), (3,), (2, 3), (0,), (4, 1), (1, 3), (2, 1, 3) */
static const int64_t SHAPES[][4] = {{0, 0, 0, 0}, {1, 1, 0, 0}, {1, 3, 0, 0}, {2, 2, 3, 0},
                                    {1, 0, 0, 0}, {2, 4, 1, 0}, {2, 1, 3, 0}, {3, 2, 1, 3}};
static const double FILLS[] = {1.5, -2.0, 0.0, 3.0, -0.5, 1e30, 127.0, 65504.0};

static void check_array(const nd_array *a)
{
    __int128 n = 1;
    int nd = nd_ndim(a);
    if (nd < 0 || nd > ND_MAX_DIMS) __builtin_trap();
    for (int i = 0; i < nd; i++) {
        if (nd_shape(a)[i] < 0) __builtin_trap();
        n *= nd_shape(a)[i];
    }
    if (n != nd_size(a)) __builtin_trap();
    if (nd_size(a) && nd_nbytes(a) % (size_t)nd_size(a)) __builtin_trap();
}

static void check_failure_of(nd_status st, const char *fn)
{
    if (st < ND_ERR_INVALID || st > ND_ERR_INTERNAL + 16) __builtin_trap();
    if (strncmp(nd_last_error(), fn, strlen(fn)) != 0) __builtin_trap();
}

static void check_failure(nd_status st) { check_failure_of(st, "nd_expr_eval"); }

/* A constructor's outcome: on failure no kernel and a message naming fn;
 * on success the kernel named as asked. Releases it. */
static void kernel_made(nd_status st, nd_kernel *k, const char *fn, const char *name)
{
    if (st != ND_OK) {
        if (k != NULL) __builtin_trap();
        check_failure_of(st, fn);
    } else if (!nd_kernel_name(k) || strcmp(nd_kernel_name(k), name) != 0) {
        __builtin_trap();
    }
    nd_kernel_release(k);
}

/* The kernel constructors on the input's lines: in, out, body (or map),
 * name, reduce, post, identity, reduce type; a missing line is NULL. */
static void kernels(reader *r)
{
    size_t len = r->n < EXPR_MAX ? r->n : EXPR_MAX;
    char *buf = malloc(len + 1);
    if (!buf) __builtin_trap();
    memcpy(buf, r->p, len);
    buf[len] = '\0';
    const char *part[8] = {NULL};
    char *p = buf;
    for (int i = 0; i < 8 && p; i++) {
        part[i] = p;
        p = strchr(p, '\n');
        if (p) *p++ = '\0';
    }
    nd_kernel *k = NULL;
    nd_status st = nd_kernel_elementwise(&k, part[0], part[1], part[2], part[3], NULL);
    kernel_made(st, k, "nd_kernel_elementwise", part[3]);
    k = NULL;
    st = nd_kernel_reduction(&k, part[0], part[1], part[2], part[4], part[5], part[6], part[7], part[3], NULL);
    kernel_made(st, k, "nd_kernel_reduction", part[3]);
    free(buf);
}

/* The bytes of a (on the CPU), malloc'd; NULL for an empty array. */
static unsigned char *bytes_of(const nd_array *a)
{
    size_t nb = nd_nbytes(a);
    if (!nb) return NULL;
    unsigned char *h = malloc(nb);
    if (!h) __builtin_trap();
    if (nd_copy_to_host(h, a, nb) != ND_OK) __builtin_trap();
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        init = 1;
        nd_set_num_threads(1);
        if (nd_memory_set_limit(nd_cpu(), (size_t)16 << 20) != ND_OK) __builtin_trap();
    }
    reader r = {data, size};
    unsigned head = u8(&r);
    int nops = (int)(head % (NOPS + 1));
    const bool given = (head >> 3) & 1, clear = (head >> 4) & 1;
    if ((head >> 5) & 1) {
        kernels(&r);
        return 0;
    }
    const char *names[NOPS];
    nd_array *ops[NOPS] = {NULL};
    int made = 0;
    for (int k = 0; k < nops; k++) {
        unsigned nb = u8(&r), tb = u8(&r), sb = u8(&r), fb = u8(&r);
        names[k] = NAMES[nb % (sizeof NAMES / sizeof NAMES[0])];
        const nd_dtype t = (nd_dtype)(tb % ((unsigned)ND_COMPLEX128 + 1));
        const int64_t *sh = SHAPES[sb % (sizeof SHAPES / sizeof SHAPES[0])];
        nd_status st = nd_full(&ops[k], t, (int)sh[0], sh + 1, nd_scalar_float(FILLS[fb % 8]), nd_cpu());
        if (st != ND_OK) { /* a fill out of the dtype's range */
            ops[k] = NULL;
            st = nd_full(&ops[k], t, (int)sh[0], sh + 1, nd_scalar_int(1), nd_cpu());
            if (st != ND_OK) __builtin_trap();
        }
        made++;
    }
    size_t len = r.n < EXPR_MAX ? r.n : EXPR_MAX;
    char *expr = malloc(len + 1);
    if (!expr) __builtin_trap();
    memcpy(expr, r.p, len);
    expr[len] = '\0';
    if (clear) nd_expr_cache_clear();
    if ((head >> 6) & 1) { /* einsum: the operands are small, so is every result */
        nd_array *e = NULL;
        nd_status st = nd_einsum(&e, expr, nops, (const nd_array *const *)ops);
        if (st != ND_OK) {
            if (e != NULL) __builtin_trap();
            check_failure_of(st, "nd_einsum");
        } else {
            check_array(e);
            nd_array *e2 = NULL;
            if (nd_einsum(&e2, expr, nops, (const nd_array *const *)ops) != ND_OK) __builtin_trap();
            unsigned char *b1 = bytes_of(e), *b2 = bytes_of(e2);
            if (nd_nbytes(e) != nd_nbytes(e2) || (b1 && memcmp(b1, b2, nd_nbytes(e)) != 0)) __builtin_trap();
            free(b1), free(b2);
            nd_release(e2);
        }
        nd_release(e);
        free(expr);
        for (int k = 0; k < made; k++) nd_release(ops[k]);
        return 0;
    }

    /* into a new array */
    nd_array *out = NULL;
    nd_status st = nd_expr_eval(&out, expr, nops, names, (const nd_array *const *)ops);
    if (st != ND_OK) {
        if (out != NULL) __builtin_trap();
        check_failure(st);
    } else {
        check_array(out);
        unsigned char *b1 = bytes_of(out);
        nd_array *again = NULL;
        if (nd_expr_eval(&again, expr, nops, names, (const nd_array *const *)ops) != ND_OK) __builtin_trap();
        check_array(again);
        if (nd_dtype_of(again) != nd_dtype_of(out) || nd_size(again) != nd_size(out)) __builtin_trap();
        unsigned char *b2 = bytes_of(again);
        if (b1 && memcmp(b1, b2, nd_nbytes(out)) != 0) __builtin_trap();
        free(b1), free(b2);
        nd_release(again);
        nd_release(out);
    }

    /* into a given array: on failure it keeps its bits */
    if (given) {
        nd_array *dst = NULL;
        if (nd_full(&dst, ND_FLOAT64, 2, (const int64_t[]){2, 3}, nd_scalar_float(7.25), nd_cpu()) != ND_OK)
            __builtin_trap();
        nd_array *keep = dst;
        unsigned char *before = bytes_of(dst);
        st = nd_expr_eval(&dst, expr, nops, names, (const nd_array *const *)ops);
        if (dst != keep) __builtin_trap();
        if (st != ND_OK) {
            check_failure(st);
            unsigned char *after = bytes_of(dst);
            if (memcmp(before, after, nd_nbytes(dst)) != 0) __builtin_trap();
            free(after);
        }
        free(before);
        nd_release(dst);
    }
    free(expr);
    for (int k = 0; k < made; k++) nd_release(ops[k]);
    return 0;
}
