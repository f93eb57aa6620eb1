/* bench_index - the issue-13 indexing speed cases through the public API:
 *   take/float32/1000000x16/axis0: nd_take(a, idx, 0) with 1e6 random
 *     int64 indices (NumPy: np.take(a, idx, axis=0));
 *   mask_select/float32/16000000: nd_mask_select(a, m), a random ~50%
 *     bool mask (NumPy: a[m]);
 *   flatnonzero/bool/16000000: nd_flatnonzero(m) (NumPy: np.flatnonzero(m);
 *     np.nonzero(m) costs the same for a 1-D m).
 * Data: xorshift64 from fixed seeds (values in [0, 1), indices uniform in
 * [0, rows), mask = u < 0.5); each case is checked once against a plain C
 * reference; the timed calls write into an existing output. compare.py
 * has no worker for these yet ("call": null): the NumPy figures come from
 * the expressions above run with timeit. */
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

enum { K_TAKE, K_MASK, K_NONZERO, NK };
static const char *const names[NK] = {"take", "mask_select", "flatnonzero"};

#define TAKE_ROWS 1000000
#define TAKE_COLS 16
#define MASK_N 16000000

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct {
    int kind;
    nd_array *a, *b, *out;
} call_t;

static int run(void *p)
{
    call_t *c = p;
    if (c->kind == K_TAKE) return nd_take(&c->out, c->a, c->b, 0, ND_TAKE_RAISE);
    if (c->kind == K_MASK) return nd_mask_select(&c->out, c->a, c->b);
    return nd_flatnonzero(&c->out, c->b);
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "index", c);
    snprintf(r.op, sizeof r.op, "%s", names[c->kind]);
    call_t call = {c->kind, NULL, NULL, NULL};
    uint64_t s = 0x9e3779b97f4a7c15ull;
    nd_status st = ND_OK;
    float *av = NULL, *got = NULL;
    int64_t *iv = NULL, *gi = NULL;
    uint8_t *mv = NULL;
    if (c->kind == K_TAKE) {
        const int64_t n = (int64_t)TAKE_ROWS * TAKE_COLS;
        snprintf(r.shape, sizeof r.shape, "%dx%d", TAKE_ROWS, TAKE_COLS);
        snprintf(r.layout, sizeof r.layout, "axis0");
        av = malloc(sizeof(float) * (size_t)n);
        iv = malloc(sizeof(int64_t) * TAKE_ROWS);
        got = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++) av[i] = (float)((xs(&s) >> 40) * 0x1p-24);
        for (int64_t i = 0; i < TAKE_ROWS; i++) iv[i] = (int64_t)(xs(&s) % TAKE_ROWS);
        st = nd_from_host(&call.a, av, ND_FLOAT32, 2, (const int64_t[]){TAKE_ROWS, TAKE_COLS}, c->dev);
        if (!st) st = nd_from_host(&call.b, iv, ND_INT64, 1, (const int64_t[]){TAKE_ROWS}, c->dev);
        r.bytes = (double)n * 4 * 2 + TAKE_ROWS * 8.0;
    } else {
        snprintf(r.shape, sizeof r.shape, "%d", MASK_N);
        snprintf(r.layout, sizeof r.layout, "contiguous");
        av = malloc(sizeof(float) * MASK_N);
        mv = malloc(MASK_N);
        got = malloc(sizeof(float) * MASK_N);
        gi = malloc(sizeof(int64_t) * MASK_N);
        for (int64_t i = 0; i < MASK_N; i++) av[i] = (float)((xs(&s) >> 40) * 0x1p-24), mv[i] = (xs(&s) >> 63) != 0;
        st = nd_from_host(&call.a, av, ND_FLOAT32, 1, (const int64_t[]){MASK_N}, c->dev);
        if (!st) st = nd_from_host(&call.b, mv, ND_BOOL, 1, (const int64_t[]){MASK_N}, c->dev);
        if (c->kind == K_NONZERO) snprintf(r.dtype, sizeof r.dtype, "bool");
        r.bytes = c->kind == K_MASK ? MASK_N * 5.0 + MASK_N * 2.0 : MASK_N * 1.0 + MASK_N * 4.0;
    }
    if (st) bench_fail_nd(&r, "creating the inputs", st);
    if (!st && (st = run(&call))) bench_fail_nd(&r, names[c->kind], st);
    if (!st) { /* check once */
        bool ok = true;
        if (c->kind == K_TAKE) {
            st = nd_copy_to_host(got, call.out, nd_nbytes(call.out));
            for (int64_t q = 0; ok && !st && q < TAKE_ROWS; q++)
                ok = memcmp(got + q * TAKE_COLS, av + iv[q] * TAKE_COLS, TAKE_COLS * sizeof(float)) == 0;
        } else {
            int64_t cnt = 0;
            for (int64_t i = 0; i < MASK_N; i++) cnt += mv[i];
            ok = nd_size(call.out) == cnt;
            if (ok) st = nd_copy_to_host(c->kind == K_MASK ? (void *)got : (void *)gi, call.out, nd_nbytes(call.out));
            for (int64_t i = 0, k = 0; ok && !st && i < MASK_N; i++)
                if (mv[i]) ok = c->kind == K_MASK ? got[k++] == av[i] : gi[k++] == i;
        }
        if (st) bench_fail_nd(&r, "fetching the result", st);
        else if (!ok) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result differs from the reference");
        }
    }
    if (!st && r.status == BS_OK && (st = bench_measure(run, &call, c->dev, &r.st))) bench_fail_nd(&r, names[c->kind], st);
    bench_emit(&r);
    nd_release(call.out);
    nd_release(call.a);
    nd_release(call.b);
    free(av);
    free(got);
    free(iv);
    free(gi);
    free(mv);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_index",
               "take along axis 0 of (1e6, 16) float32, a[mask] and flatnonzero of 1.6e7 elements");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int k = 0; k < NK; k++) {
            bench_case c = {.kind = k, .dtype = k == K_NONZERO ? ND_BOOL : ND_FLOAT32, .dev = bench_device(d)};
            snprintf(c.key, sizeof c.key, "%s/%s/%s/%s", names[k], k == K_NONZERO ? "bool" : "float32",
                     k == K_TAKE ? "1000000x16" : "16000000", bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
    return bench_finish();
}
