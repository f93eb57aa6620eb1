/* quickstart.c - the README's tour of libndgpu: create arrays, broadcast
 * add, reduce, matmul, copy to the host, and handle an error.
 * Build: make examples   Run: build/examples/quickstart
 */
// expect: quickstart: ok
#include <ndgpu.h>
#include <stdio.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        nd_status st_ = (call);                                                  \
        if (st_ != ND_OK) {                                                      \
            fprintf(stderr, "%s failed: %s\n", #call, nd_last_error());           \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(void)
{
    nd_device dev = nd_default_device(); /* cuda:0 when a GPU is usable */
    printf("libndgpu %s on %s\n", nd_version(), dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu");

    const float m[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3};
    nd_array *a = NULL, *b = NULL, *c = NULL, *s = NULL, *p = NULL;
    CHECK(nd_from_host(&a, m, ND_FLOAT32, 2, shape, dev));   /* a = [[1,2,3],[4,5,6]] */
    CHECK(nd_arange(&b, ND_FLOAT32, 10, 40, 10, dev));        /* b = [10,20,30] */
    CHECK(nd_add(&c, a, b));                                 /* broadcast: (2,3) + (3,) */
    CHECK(nd_sum(&s, c, 0, NULL, false));                    /* sum of everything */

    nd_array *at = NULL;
    CHECK(nd_transpose(&at, a, NULL));                       /* a view, no copy */
    CHECK(nd_matmul(&p, a, at));                             /* (2,3) @ (3,2) -> (2,2) */

    float cv[6], sv, pv[4];
    CHECK(nd_copy_to_host(cv, c, sizeof cv));
    CHECK(nd_copy_to_host(&sv, s, sizeof sv));
    CHECK(nd_copy_to_host(pv, p, sizeof pv));
    printf("c = a + b = [[%g %g %g] [%g %g %g]]\n", cv[0], cv[1], cv[2], cv[3], cv[4], cv[5]);
    printf("sum(c) = %g, a @ a.T = [[%g %g] [%g %g]]\n", sv, pv[0], pv[1], pv[2], pv[3]);

    /* Errors come back as a status and a message; nothing is printed or aborted. */
    nd_array *bad = NULL, *x = NULL;
    CHECK(nd_ones(&x, ND_FLOAT32, 1, (int64_t[]){5}, dev));
    nd_status st = nd_add(&bad, a, x);
    printf("a + ones(5): %s: %s\n", nd_status_name(st), nd_last_error());

    int ok = sv == 141.0f && pv[0] == 14.0f && pv[3] == 77.0f && st == ND_ERR_SHAPE && bad == NULL;
    nd_release(a), nd_release(b), nd_release(c), nd_release(s);
    nd_release(at), nd_release(p), nd_release(x);
    printf("quickstart: %s\n", ok ? "ok" : "WRONG RESULT");
    return ok ? 0 : 1;
}
