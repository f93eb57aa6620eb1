/* Kernel coverage of every compiled-in backend, checked without a device:
 * each backend answers nd_backend.supports for every op of the op table
 * x every dtype, and the CUDA backend must have a kernel wherever the CPU
 * backend has one (the CPU's set is the set the core dispatches). This
 * runs on machines without a GPU, so a CUDA kernel that is missing fails CI
 * even though no CUDA kernel can run there. */
#include <stdio.h>

#include "internal.h"
#include "philox.h"
#include "test_util.h"

#ifdef ND_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

static const char *kind_name(nd_kernel_kind k)
{
    static const char *const names[ND_NUM_KERNEL_KINDS] = {"unary", "binary", "where", "reduce",
                                                           "matmul", "gemm",   "random", "cast"};
    return (unsigned)k < ND_NUM_KERNEL_KINDS ? names[k] : "?";
}

static int num_ops(nd_kernel_kind k)
{
    switch (k) {
    case ND_KERNEL_UNARY: return ND_NUM_UNARY_OPS;
    case ND_KERNEL_BINARY: return ND_NUM_BINARY_OPS;
    case ND_KERNEL_REDUCE: return ND_NUM_REDUCE_OPS;
    case ND_KERNEL_RANDOM: return 2;
    case ND_KERNEL_CAST: return ND_NUM_DTYPES;
    default: return 1;
    }
}

static const char *op_name(nd_kernel_kind k, int op)
{
    switch (k) {
    case ND_KERNEL_UNARY: return nd_unary_op_name((nd_unary_op)op);
    case ND_KERNEL_BINARY: return nd_binary_op_name((nd_binary_op)op);
    case ND_KERNEL_REDUCE: return nd_reduce_op_name((nd_reduce_op)op);
    case ND_KERNEL_RANDOM: return op == ND_RANDOM_UNIFORM ? "uniform" : "normal";
    case ND_KERNEL_CAST: return nd_dtype_name((nd_dtype)op);
    default: return kind_name(k);
    }
}

/* The CPU backend has a kernel for every op of the table on at least one
 * dtype, and answers no for out-of-range ops and dtypes. */
START_TEST(cpu_backend_covers_the_op_table)
{
    const nd_backend *cpu = nd__backend(nd_cpu());
    ck_assert_ptr_nonnull(cpu->supports);
    int loops = 0;
    for (int k = 0; k < ND_NUM_KERNEL_KINDS; k++) {
        for (int op = 0; op < num_ops((nd_kernel_kind)k); op++) {
            int n = 0;
            for (int t = 0; t < ND_NUM_DTYPES; t++) n += cpu->supports((nd_kernel_kind)k, op, (nd_dtype)t);
            ck_assert_msg(n > 0, "cpu: %s %s has no kernel for any dtype", kind_name((nd_kernel_kind)k),
                          op_name((nd_kernel_kind)k, op));
            loops += n;
        }
        ck_assert(!cpu->supports((nd_kernel_kind)k, num_ops((nd_kernel_kind)k), ND_FLOAT32));
        ck_assert(!cpu->supports((nd_kernel_kind)k, 0, (nd_dtype)ND_NUM_DTYPES));
    }
    /* the op table's 67 ops x their loop dtypes are all there */
    ck_assert(cpu->supports(ND_KERNEL_UNARY, ND_UNARY_EXP, ND_BFLOAT16));
    ck_assert(!cpu->supports(ND_KERNEL_UNARY, ND_UNARY_EXP, ND_INT32)); /* the core casts ints to a float */
    ck_assert(cpu->supports(ND_KERNEL_BINARY, ND_BINARY_RIGHT_SHIFT, ND_UINT64));
    printf("coverage: cpu backend has %d kernels (op x dtype) over %d kernel kinds\n", loops, ND_NUM_KERNEL_KINDS);
}
END_TEST

#ifdef ND_WITH_CUDA
/* Every (kind, op, dtype) the CPU backend has, the CUDA backend has. */
START_TEST(cuda_backend_covers_what_the_cpu_has)
{
    const nd_backend *cpu = nd__backend(nd_cpu()), *cuda = nd__backend(nd_cuda(0));
    ck_assert_ptr_nonnull(cuda);
    ck_assert_ptr_nonnull(cuda->supports);
    int missing = 0, have = 0;
    for (int k = 0; k < ND_NUM_KERNEL_KINDS; k++)
        for (int op = 0; op < num_ops((nd_kernel_kind)k); op++)
            for (int t = 0; t < ND_NUM_DTYPES; t++) {
                if (!cpu->supports((nd_kernel_kind)k, op, (nd_dtype)t)) continue;
                if (cuda->supports((nd_kernel_kind)k, op, (nd_dtype)t)) {
                    have++;
                    continue;
                }
                if (missing++ < 40)
                    fprintf(stderr, "coverage: cuda has no %s kernel for %s on %s\n", kind_name((nd_kernel_kind)k),
                            op_name((nd_kernel_kind)k, op), nd_dtype_name((nd_dtype)t));
            }
    printf("coverage: cuda backend has %d of the cpu's kernels, %d missing\n", have, missing);
    ck_assert_msg(missing == 0, "the CUDA backend lacks %d kernels the CPU backend has (listed on stderr)", missing);
}
END_TEST
#endif

Suite *suite_coverage(void)
{
    Suite *s = suite_create("coverage");
    TCase *tc = tcase_create("coverage");
    tcase_add_test(tc, cpu_backend_covers_the_op_table);
#ifdef ND_WITH_CUDA
    tcase_add_test(tc, cuda_backend_covers_what_the_cpu_has);
#else
    printf("coverage: cuda backend not compiled in (CUDA=0): its coverage is SKIPPED\n");
#endif
    suite_add_tcase(s, tc);
    return s;
}
