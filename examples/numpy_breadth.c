/* numpy_breadth.c - a tour of the NumPy functions most programs reach for
 * in the first hour: top-k of scores, a boolean mask, unique labels with
 * counts, a cumulative sum, einsum, a padded copy and a random
 * permutation, on the default device (the GPU when there is one). Every
 * result is checked against the value NumPy gives.
 * Build: make examples   Run: build/examples/numpy_breadth
 */
// expect: numpy_breadth: ok
#include <math.h>
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
#define EXPECT(cond)                                                             \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "numpy_breadth: %s is false\n", #cond);              \
            return 1;                                                            \
        }                                                                        \
    } while (0)

int main(void)
{
    nd_device dev = nd_default_device();
    /* scores of 2 samples over 5 classes */
    const float sc[10] = {0.1f, 2.5f, -1.0f, 0.7f, 2.4f, 3.0f, NAN, 0.0f, 1.0f, -2.0f};
    const int64_t shape[2] = {2, 5};
    nd_array *scores = NULL, *top = NULL, *topi = NULL;
    CHECK(nd_from_host(&scores, sc, ND_FLOAT32, 2, shape, dev));
    /* torch.topk(scores, 2): NaN counts as the largest (as torch) */
    CHECK(nd_topk(&top, &topi, scores, 2, -1, true, true));
    int64_t ti[4];
    CHECK(nd_copy_to_host(ti, topi, sizeof ti));
    EXPECT(ti[0] == 1 && ti[1] == 4 && ti[2] == 1 && ti[3] == 0);

    /* a[a > 0.5]  (NumPy: [2.5, 0.7, 2.4, 3.0, 1.0]; NaN > 0.5 is false) */
    nd_array *mask = NULL, *sel = NULL;
    CHECK(nd_binary_scalar(&mask, ND_BINARY_GREATER, scores, nd_scalar_float(0.5)));
    CHECK(nd_mask_select(&sel, scores, mask));
    EXPECT(nd_size(sel) == 5);

    /* np.unique(labels, return_counts=True) -> [1, 3, 7], [2, 1, 3] */
    const int32_t lab[6] = {7, 1, 7, 3, 1, 7};
    const int64_t six = 6;
    nd_array *labels = NULL, *uv = NULL, *uc = NULL;
    CHECK(nd_from_host(&labels, lab, ND_INT32, 1, &six, dev));
    CHECK(nd_unique(&uv, NULL, NULL, &uc, labels));
    int32_t u[3];
    int64_t cnt[3];
    EXPECT(nd_size(uv) == 3);
    CHECK(nd_copy_to_host(u, uv, sizeof u));
    CHECK(nd_copy_to_host(cnt, uc, sizeof cnt));
    EXPECT(u[0] == 1 && u[1] == 3 && u[2] == 7 && cnt[0] == 2 && cnt[1] == 1 && cnt[2] == 3);

    /* np.cumsum(labels) -> int64 [7, 8, 15, 18, 19, 26] */
    nd_array *cs = NULL;
    CHECK(nd_cumsum(&cs, labels, ND_AXIS_NONE));
    int64_t c[6];
    EXPECT(nd_dtype_of(cs) == ND_INT64);
    CHECK(nd_copy_to_host(c, cs, sizeof c));
    EXPECT(c[5] == 26);

    /* np.einsum('ij,ij->i', scores, scores) without the NaN row: row 0 */
    nd_array *ops[2] = {NULL, NULL}, *e = NULL;
    nd_range r0 = {0, 1, 1};
    CHECK(nd_slice(&ops[0], scores, 1, &r0));
    ops[1] = ops[0];
    CHECK(nd_einsum(&e, "ij,ij->i", 2, (const nd_array *const *)ops));
    float ev;
    CHECK(nd_copy_to_host(&ev, e, sizeof ev));
    EXPECT(fabsf(ev - (0.01f + 6.25f + 1.0f + 0.49f + 5.76f)) < 1e-5f);

    /* np.pad(labels, 2, mode='reflect') -> [7, 1, 7, 1, 7, 3, 1, 7, 1, 3] */
    nd_array *pd = NULL;
    const int64_t w[2] = {2, 2};
    CHECK(nd_pad(&pd, labels, 1, w, ND_PAD_REFLECT, nd_scalar_int(0)));
    int32_t p[10];
    CHECK(nd_copy_to_host(p, pd, sizeof p));
    EXPECT(p[0] == 7 && p[1] == 1 && p[8] == 1 && p[9] == 3);

    /* a permutation: the same one on every device for a seed */
    nd_rng *rng = NULL;
    nd_array *perm = NULL;
    CHECK(nd_rng_create(&rng, 42));
    CHECK(nd_random_permutation(&perm, rng, 10, dev));
    int64_t pv[10], seen = 0;
    CHECK(nd_copy_to_host(pv, perm, sizeof pv));
    for (int i = 0; i < 10; i++) seen |= (int64_t)1 << pv[i];
    EXPECT(seen == 1023);

    nd_release(scores), nd_release(top), nd_release(topi), nd_release(mask), nd_release(sel);
    nd_release(labels), nd_release(uv), nd_release(uc), nd_release(cs), nd_release(ops[0]), nd_release(e);
    nd_release(pd), nd_release(perm);
    nd_rng_destroy(rng);
    printf("numpy_breadth: ok (%s)\n", dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu");
    return 0;
}
