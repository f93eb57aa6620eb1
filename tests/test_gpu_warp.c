/* Suite gpu_warp: the warp and block primitives on the device (kernels in
 * tests/cuda/warp_kernels.cu): every shuffle form at every width against
 * CUDA's documented lane rules, divergent warps meeting at barriers,
 * __syncthreads_or, early-exited threads, and launches over a real GPU's
 * limits. On the emulated GPU this is the proof that the seam gives CUDA's
 * 32-lane semantics on top of HIP-CPU's 64-lane fibers; on a GPU it checks
 * the same kernels against the same expectations. */
#include <stdio.h>

#include "test_util.h"

#ifdef ND_WITH_CUDA
int ndt_run_shuffles(int *host_out, const int *host_args, int nthreads);
int ndt_run_divergent(int64_t *host_res, int nthreads, int skip_warp, int or_thread);
int ndt_run_exit(int *host_res, int nthreads, int live);
int ndt_run_bad_launch(int which);

#define NDT_FORMS 4
#define NDT_WIDTHS 6
#define NDT_ARGS 3

/* CUDA's rules (Programming Guide, warp shuffle functions), lane l, width w. */
static int expect_src(int form, int l, int w, int a)
{
    int seg = l / w * w;
    switch (form) {
    case 0: return seg + ((a % w) + w) % w;             /* __shfl_sync: srcLane modulo width */
    case 1: return (l - seg) - a >= 0 ? l - a : l;      /* up: below the segment -> own value */
    case 2: return (l - seg) + a < w ? l + a : l;       /* down: past the segment -> own value */
    default: {                                          /* xor: later groups -> own value */
        int x = l ^ a;
        return x < seg + w ? x : l;
    }
    }
}

START_TEST(every_shuffle_form_and_width)
{
    const int nthreads = 96; /* three whole warps */
    const int args[NDT_ARGS] = {1, 5, 19};
    size_t n = (size_t)NDT_FORMS * NDT_WIDTHS * NDT_ARGS * nthreads;
    int *out = malloc(n * sizeof(int));
    ck_assert_int_eq(ndt_run_shuffles(out, args, nthreads), 0);
    int bad = 0, checked = 0;
    static const char *names[NDT_FORMS] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"};
    for (int f = 0; f < NDT_FORMS; f++)
        for (int wi = 0; wi < NDT_WIDTHS; wi++)
            for (int ai = 0; ai < NDT_ARGS; ai++)
                for (int t = 0; t < nthreads; t++) {
                    int w = 32 >> wi, lane = t % 32, warp0 = t - lane;
                    int want = (warp0 + expect_src(f, lane, w, args[ai])) * 7 + 1;
                    int got = out[((f * NDT_WIDTHS + wi) * NDT_ARGS + ai) * nthreads + t];
                    checked++;
                    if (got != want && bad++ < 10)
                        fprintf(stderr, "%s(v, %d, width %d) thread %d: got %d, want %d\n", names[f], args[ai], w, t,
                                got, want);
                }
    free(out);
    printf("gpu_warp: %d shuffle lanes checked (4 forms x 6 widths x 3 offsets x 96 threads)\n", checked);
    ck_assert_msg(bad == 0, "%d shuffle lanes differ from CUDA's rules", bad);
}
END_TEST

START_TEST(divergent_warps_and_barriers)
{
    const int sizes[] = {64, 96, 256, 1024};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int nt = sizes[k];
        for (int skip = -1; skip < 2; skip++) {
            int64_t *res = malloc(2 * (size_t)nt * sizeof(int64_t));
            int or_thread = skip == 0 ? nt - 1 : (skip < 0 ? -5 : 33);
            ck_assert_int_eq(ndt_run_divergent(res, nt, skip, or_thread), 0);
            int64_t want = 0;
            for (int t = 0; t < nt; t++)
                if (t / 32 != skip) want += (int64_t)(t + 1) * (t + 3);
            for (int t = 0; t < nt; t++) {
                ck_assert_msg(res[t] == want, "%d threads, warp %d skipping: thread %d saw %lld, want %lld", nt, skip,
                              t, (long long)res[t], (long long)want);
                ck_assert_msg(res[nt + t] == (or_thread >= 0 && or_thread < nt),
                              "__syncthreads_or: thread %d got %lld", t, (long long)res[nt + t]);
            }
            free(res);
        }
    }
}
END_TEST

START_TEST(exited_threads_release_barriers)
{
    const int nt = 128;
    for (int live = 1; live <= nt; live += 37) {
        int res[128];
        ck_assert_int_eq(ndt_run_exit(res, nt, live), 0);
        for (int t = 0; t < nt; t++) ck_assert_int_eq(res[t], t < live ? 1000 + live - 1 : -1);
    }
}
END_TEST

START_TEST(launch_limits_are_enforced)
{
    for (int which = 0; which < 4; which++)
        ck_assert_msg(ndt_run_bad_launch(which) == 9 /* cudaErrorInvalidConfiguration */, "case %d", which);
}
END_TEST
#endif

Suite *suite_gpu_warp(void)
{
    Suite *s = suite_create("gpu_warp");
#ifdef ND_WITH_CUDA
    if (nd_test_gpu_count() > 0) {
        TCase *tc = tcase_create("warp");
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, every_shuffle_form_and_width);
        tcase_add_test(tc, divergent_warps_and_barriers);
        tcase_add_test(tc, exited_threads_release_barriers);
        tcase_add_test(tc, launch_limits_are_enforced);
        suite_add_tcase(s, tc);
        return s;
    }
#endif
    printf("gpu_warp suite: SKIPPED (no GPU)\n");
    return s;
}
