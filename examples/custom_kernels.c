/* custom_kernels.c - your own elementwise and reduction kernels, one C
 * body for the CPU and the GPU, and a chain of ops fused into one pass.
 *
 *   build/examples/custom_kernels
 *
 * What it shows:
 *  - nd_kernel_elementwise: a leaky ReLU with a scalar parameter, compiled
 *    at the first call (the system C compiler for the CPU, NVRTC for a
 *    GPU) and cached on disk (docs/kernels.md); the same kernel object runs
 *    on the CPU and, when there is one, on cuda:0, and both agree;
 *  - nd_kernel_reduction: a row-wise L2 norm (map x*x, reduce a+b, post
 *    sqrt) over axis 1;
 *  - nd_expr_eval: the tanh approximation of GELU evaluated fused, against
 *    the same chain op by op (same bits, no array-sized temporaries), and
 *    the time saved.
 * Without a C compiler the kernels say so (ND_ERR_UNSUPPORTED) and the
 * example goes on with the fused chain.
 */
// expect: custom kernels: ok
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ndgpu.h"

#define CHECK(call)                                                                              \
    do {                                                                                         \
        nd_status st_ = (call);                                                                  \
        if (st_ != ND_OK) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nd_last_error());      \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The leaky ReLU on dev; 0 when it ran and matched the host's loop, 2 when
 * no compiler is there, 1 on an error. */
static int leaky_relu_on(nd_kernel *k, nd_device dev, const nd_array *x_host)
{
    nd_array *x = NULL, *alpha = NULL, *y = NULL, *yh = NULL;
    CHECK(nd_to_device(&x, x_host, dev));
    CHECK(nd_full(&alpha, ND_FLOAT32, 0, NULL, nd_scalar_float(0.1), dev));
    const nd_status st = nd_kernel_call(k, 2, (const nd_array *[]){x, alpha}, 1, &y);
    if (st == ND_ERR_UNSUPPORTED) {
        printf("  %s: kernels unavailable here (%s)\n", dev.type == ND_DEVICE_CPU ? "cpu" : "cuda:0", nd_last_error());
        nd_release(x), nd_release(alpha);
        return 2;
    }
    CHECK(st);
    CHECK(nd_to_device(&yh, y, nd_cpu()));
    const float *px = nd_data(x_host), *py = nd_data(yh);
    int bad = 0;
    for (int64_t i = 0; i < nd_size(x_host); i++) bad += py[i] != (px[i] > 0 ? px[i] : 0.1f * px[i]);
    printf("  leaky_relu on %s: %lld elements, %d mismatches\n", dev.type == ND_DEVICE_CPU ? "cpu" : "cuda:0",
           (long long)nd_size(x_host), bad);
    nd_release(x), nd_release(alpha), nd_release(y), nd_release(yh);
    return bad != 0;
}

int main(void)
{
    const int64_t n = (int64_t)1 << 22;
    nd_rng *rng = NULL;
    nd_array *x = NULL;
    CHECK(nd_rng_create(&rng, 7));
    CHECK(nd_random_normal(&x, rng, ND_FLOAT32, 1, &n, 0.0, 1.0, nd_cpu()));

    /* 1. one elementwise kernel, every device */
    nd_kernel *relu = NULL;
    CHECK(nd_kernel_elementwise(&relu, "T x, T alpha", "T y", "y = x > 0 ? x : alpha * x", "leaky_relu", NULL));
    int r = leaky_relu_on(relu, nd_cpu(), x);
    if (r == 1) return 1;
    if (nd_cuda_device_count() > 0 && leaky_relu_on(relu, nd_cuda(0), x) == 1) return 1;
    nd_kernel_release(relu);

    /* 2. a reduction kernel: the L2 norm of each row */
    if (r == 0) {
        nd_kernel *l2 = NULL;
        nd_array *m = NULL, *norms = NULL;
        CHECK(nd_kernel_reduction(&l2, "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "float64", "row_l2", NULL));
        CHECK(nd_reshape(&m, x, 2, (const int64_t[]){1024, n / 1024}));
        CHECK(nd_kernel_reduce(l2, 1, (const nd_array *[]){m}, 1, (const int[]){1}, false, &norms));
        const float *pm = nd_data(m), *pn = nd_data(norms);
        double acc = 0;
        for (int64_t j = 0; j < n / 1024; j++) acc += (double)pm[j] * pm[j];
        printf("  row_l2: %lld rows, row 0 = %.6f (double reference %.6f)\n", (long long)nd_size(norms), pn[0], sqrt(acc));
        if (fabs(pn[0] - sqrt(acc)) > 1e-5 * sqrt(acc)) return 1;
        nd_kernel_release(l2);
        nd_release(m), nd_release(norms);
    }

    /* 3. a fused chain: GELU, tanh approximation (10 ops) */
    const char *gelu = "0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x)))";
    const char *names[] = {"x"};
    nd_array *fused = NULL, *t = NULL, *u = NULL, *chain = NULL;
    CHECK(nd_expr_eval(&fused, gelu, 1, names, (const nd_array *[]){x})); /* parses and plans once */
    double t0 = now_s();
    for (int rep = 0; rep < 5; rep++) CHECK(nd_expr_eval(&fused, gelu, 1, names, (const nd_array *[]){x}));
    const double tf = (now_s() - t0) / 5;
    t0 = now_s();
    for (int rep = 0; rep < 5; rep++) {
        nd_release(chain), chain = NULL;
        /* left to right, as the expression groups: ((0.044715 * x) * x) * x */
        CHECK(nd_binary_scalar(&t, ND_BINARY_MULTIPLY, x, nd_scalar_float(0.044715)));
        CHECK(nd_multiply(&u, t, x));
        nd_release(t), t = NULL;
        CHECK(nd_multiply(&t, u, x));
        nd_release(u), u = NULL;
        CHECK(nd_add(&u, x, t));                            /* x + 0.044715 x^3 */
        nd_release(t), t = NULL;
        CHECK(nd_binary_scalar(&t, ND_BINARY_MULTIPLY, u, nd_scalar_float(0.7978845608)));
        nd_release(u), u = NULL;
        CHECK(nd_tanh(&u, t));
        nd_release(t), t = NULL;
        CHECK(nd_binary_scalar(&t, ND_BINARY_ADD, u, nd_scalar_float(1)));
        nd_release(u), u = NULL;
        CHECK(nd_binary_scalar(&u, ND_BINARY_MULTIPLY, x, nd_scalar_float(0.5)));
        CHECK(nd_multiply(&chain, u, t));
        nd_release(t), nd_release(u), t = u = NULL;
    }
    const double tc = (now_s() - t0) / 5;
    const bool same = memcmp(nd_data(fused), nd_data(chain), (size_t)n * sizeof(float)) == 0;
    printf("  gelu fused %.2f ms, op by op %.2f ms (%.1fx), same bits: %s\n", 1e3 * tf, 1e3 * tc, tc / tf,
           same ? "yes" : "no");
    if (!same) return 1;
    nd_release(fused), nd_release(chain), nd_release(x);
    nd_rng_destroy(rng);
    printf("custom kernels: ok\n");
    return 0;
}
